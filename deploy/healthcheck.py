"""Exit 0 when the app answers /_stcore/health on 127.0.0.1:$PORT, else 1: the container's health check.

Docker-format images run it from their HEALTHCHECK; OCI images have no such field, so a platform
that runs OCI images calls it itself (an exec probe: `python deploy/healthcheck.py`) or asks
http://<container>:$PORT/_stcore/health directly. Standard library only.
"""

import os
import sys
import urllib.request

port = os.environ.get("PORT", "7860")
try:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=4) as response:
        sys.exit(0 if response.status == 200 else 1)
except Exception as error:  # noqa: BLE001 - any failure means unhealthy
    print(f"healthcheck: http://127.0.0.1:{port}/_stcore/health: {error}", file=sys.stderr)
    sys.exit(1)
