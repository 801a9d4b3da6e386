"""The maths: attention in numpy with every step kept (``attention``, ``heads``), the checks of what
callers pass (``checks``), the same maths in torch for timing and cross-checks (``torch_attention``),
and the Playground's example matrices (``presets``)."""
