"""The block page's Streamlit modules."""
