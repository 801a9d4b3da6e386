"""Tables and charts: heatmap specs and colours (``charts``, ``colours``), editable grids
(``grid``), CSV export (``export``) and the link codecs (``share``). No Streamlit here either."""
