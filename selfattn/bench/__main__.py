"""``python -m selfattn.bench``: time the attention implementations and print or save the figures."""

import sys

from selfattn.bench import main

sys.exit(main())
