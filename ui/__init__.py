"""Streamlit helpers shared by the pages: language, messages, matrix display, downloads."""
