"""The maths: attention in numpy with every step kept (``attention``, ``heads``), the checks of what
callers pass (``checks``), the same maths in torch for timing and cross-checks (``torch_attention``),
the Playground's example matrices (``presets``), and word order: positional encodings and the
shuffle check (``positions``)."""
