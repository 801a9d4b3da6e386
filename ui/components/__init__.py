"""Streamlit components of our own: Python that mounts them, their JavaScript and CSS beside it."""
