"""The Playground without Streamlit: its state, its link, its tables as numbers, and its texts.

The page (``pages/playground.py``) is a pipeline: read the widgets and the tables into one
:class:`~selfattn.playground.view.View` → compute the trace (:mod:`.inputs`) → draw → write the
link (:mod:`.link`), encoded from the same view. Everything here is plain Python, tested without
AppTest (tests/test_playground_pure.py).
"""
