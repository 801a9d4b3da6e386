"""The poet page's Streamlit modules."""
