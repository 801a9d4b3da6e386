"""What one visitor may cost a shared server, as plain Python: the rules, rates and sizes (``limits.py``) and the
line every run waits in (``turns.py``). ``ui/server_limits.py`` applies them through ``ui/streamlit_hooks.py``."""
