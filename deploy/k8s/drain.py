"""Wait until a Streamlit server has no visitor left, or until a deadline: the pod's preStop drain.

Kubernetes runs this inside the container when the pod is to stop (a rollout, a scale-down, a node
drain). By then the pod is out of the Service's endpoints, so the ingress sends it no new visitor;
the visitors already on it keep their websocket and their session. This waits while they finish:
it reads Streamlit's own gauge of connected sessions (``active_sessions`` on
``/_stcore/metrics``, loopback only: the Ingress denies that path to everyone), returns as soon as
it is 0 (after a short settle, so that the ingress has seen the endpoint go), and returns at the
deadline at the latest. Kubernetes then sends SIGTERM, and Streamlit stops.

Exit status 0 in every case: a preStop hook that fails only adds an event; the pod stops anyway.

Usage: python deploy/k8s/drain.py [--port 7860] [--max-seconds 3300] [--settle 10] [--every 10]
Standard library only (it runs in the app's image, beside the server).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
import urllib.request

ACTIVE = re.compile(r"(?m)^active_sessions(?:\{[^}]*\})?\s+([0-9.eE+-]+)\s*$")


def active_sessions(port: int, timeout: float = 3.0) -> int | None:
    """Connected sessions reported by the server on 127.0.0.1:``port``, or None when it does not answer."""
    url = f"http://127.0.0.1:{port}/_stcore/metrics?families=active_sessions"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as reply:
            text = reply.read(65536).decode("utf-8", "replace")
    except OSError:
        return None
    found = ACTIVE.search(text)
    return int(float(found[1])) if found else None


def drain(port: int, max_seconds: float, settle: float, every: float) -> str:
    """Wait as described above; return why the wait ended ("empty", "deadline" or "no server")."""
    deadline = time.monotonic() + max_seconds
    time.sleep(min(settle, max_seconds))  # the ingress drops this pod from its list within a few seconds
    while True:
        count = active_sessions(port)
        if count is None:
            return "no server"  # nothing left to wait for (it crashed, or never started)
        if count <= 0:
            return "empty"
        left = deadline - time.monotonic()
        if left <= 0:
            return "deadline"
        print(f"drain: {count} visitor(s) still connected; waiting (at most {left:.0f} s more)", flush=True)
        time.sleep(min(every, left))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "7860")))
    parser.add_argument("--max-seconds", type=float, default=3300.0,
                        help="give up waiting after this long; keep it below the pod's terminationGracePeriodSeconds")
    parser.add_argument("--settle", type=float, default=10.0, help="seconds to wait before the first look")
    parser.add_argument("--every", type=float, default=10.0, help="seconds between two looks")
    args = parser.parse_args(argv)
    started = time.monotonic()
    why = drain(args.port, args.max_seconds, args.settle, args.every)
    # Kubernetes keeps no output of a preStop hook that succeeds; the line shows up where it is run by hand.
    print(f"drain: done after {time.monotonic() - started:.0f} s ({why})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
