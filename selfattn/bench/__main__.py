"""``python -m selfattn.bench``: time the attention implementations and print or save the figures."""

import sys

from selfattn.bench.cli import main

sys.exit(main())
