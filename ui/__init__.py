"""The app's Streamlit side: shared mechanism at this level (state, links, editors, map sizes, widgets, the server's
limits), one package a page (``ui/playground``, ``ui/block``, ``ui/seq2seq``, ``ui/embeddings``, ``ui/heads``,
``ui/efficient``, ``ui/poet``). No page package imports another; what two pages share lives at this level."""
