"""The heads page's Streamlit modules."""
