"""The playground page's Streamlit modules."""
