"""The seq2seq page's Streamlit modules."""
