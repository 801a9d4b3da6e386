"""The embeddings page's Streamlit modules."""
