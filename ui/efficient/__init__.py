"""The efficient page's Streamlit modules."""
