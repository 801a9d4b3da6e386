#!/usr/bin/env bash
# Install what the tests need (Chromium, CJK fonts, nginx, and buildah/podman/runc/debootstrap for the
# container build, from apt when missing; pinned Python packages), then run every test: core, AppTest,
# real-browser, hostile-visitor, deploy and container tests.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! [ -x /usr/bin/chromium ] || ! fc-list 2>/dev/null | grep -qi "noto sans cjk" || ! [ -x /usr/sbin/nginx ] \
    || ! [ -x /usr/bin/buildah ] || ! [ -x /usr/bin/podman ] || ! [ -x /usr/sbin/runc ] || ! [ -x /usr/sbin/debootstrap ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium fonts-noto-cjk nginx \
    buildah podman runc debootstrap >/dev/null
fi
python3 -m pip install -q -r requirements-dev.txt
# pytest keeps the test modules it rewrote (their asserts made to explain themselves) as bytecode only where Python may
# write it: with PYTHONDONTWRITEBYTECODE set (as on this project's CI machines), each of the four workers rewrote every
# test module again, 49 s of CPU before the first test instead of 22-36 (docs/benchmarks.md).
unset PYTHONDONTWRITEBYTECODE
export SELFATTN_FUZZ_ACTIONS="${SELFATTN_FUZZ_ACTIONS:-300}"  # the whole suite walks each page 300 actions deep
# Four workers on two cores: browser, server and container tests spend much of their time waiting.
python3 -m pytest -n "${SELFATTN_TEST_WORKERS:-4}" "$@"
