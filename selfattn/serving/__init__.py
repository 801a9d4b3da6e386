"""What one visitor may cost a shared server, as plain Python: the rules, rates and sizes (``limits.py``), the
line every run waits in (``turns.py``), what a browser's message asks for, read from its public fields
(``backmsg.py``), and the check that each Streamlit internal we touch is still there (``targets.py``).
``ui/server_limits.py`` applies them through ``ui/streamlit_hooks.py``."""
