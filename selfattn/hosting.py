"""Whether the app runs as a public demo: one switch, read in one place.

``SELFATTN_HOSTED`` set to 1, true, yes or on (any case) means hosted: only allow-listed models
load, no local paths, and the benchmark keeps to its small limits. Anything else means local.
"""

from __future__ import annotations

import os

HOSTED_ENV = "SELFATTN_HOSTED"
YES = frozenset({"1", "true", "yes", "on"})


def is_hosted() -> bool:
    """True when ``SELFATTN_HOSTED`` says the app is a shared public service."""
    return os.environ.get(HOSTED_ENV, "").strip().lower() in YES
