#!/usr/bin/env bash
# Install the app into the current Python environment: the container's build steps as a script,
# so that they can be run (and tested) anywhere.
#
#   deploy/install.sh [STEP...]      steps: deps, cache, check (default: these three, in that order), prefetch
#
#   deps   CPU-only torch, pinned as in requirements.txt, from $TORCH_INDEX_URL (default: the
#          PyTorch CPU index; set it empty to let pip pick torch as it is configured), then
#          `pip install -r requirements.txt` (torch is already satisfied, so no CUDA build and no
#          nvidia-* packages come in).
#   cache  builds the Chinese character vectors into $SELFATTN_CACHE_DIR (default
#          ~/.cache/selfattn) so that no visitor waits for them.
#   check  imports the app's packages and the server's (writing their bytecode where pip wrote none:
#          the Dockerfile sets PIP_COMPILE=0) and prints the versions.
#   prefetch  (optional, not a default step) downloads the hub models in $SELFATTN_PREFETCH
#          (default: bert-base-chinese) into the Hugging Face cache ($HF_HOME, $HF_HUB_CACHE) with
#          `python -m selfattn.text.prefetch`, so that visitors get them offline. It needs the hub, or
#          a mirror in $HF_ENDPOINT; the Dockerfile runs it for `--build-arg PREFETCH=<ids>` (none by
#          default) and then sets HF_HUB_OFFLINE=1, which switches downloads off.
#
# Environment: PYTHON (default python3; a virtual environment's python installs there),
# TORCH_INDEX_URL, SELFATTN_CACHE_DIR, SELFATTN_PREFETCH, HF_ENDPOINT, and pip's own PIP_* variables.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-python3}"
TORCH_INDEX_URL="${TORCH_INDEX_URL-https://download.pytorch.org/whl/cpu}"

say() { echo "install.sh: $*"; }

step_deps() {
  local torch_pin
  torch_pin="$(grep -E '^torch==' requirements.txt | head -n 1 | sed 's/[[:space:]#].*//')"
  [[ -n $torch_pin ]] || { echo "install.sh: no 'torch==' line in requirements.txt" >&2; exit 1; }
  if [[ -n $TORCH_INDEX_URL ]]; then
    say "installing $torch_pin (CPU build) from $TORCH_INDEX_URL"
    "$PYTHON" -m pip install --index-url "$TORCH_INDEX_URL" "$torch_pin"
  else
    say "installing $torch_pin as pip is configured (TORCH_INDEX_URL is empty)"
    "$PYTHON" -m pip install "$torch_pin"
  fi
  say "installing requirements.txt"
  "$PYTHON" -m pip install -r requirements.txt
}

step_cache() {
  say "building the Chinese character vectors"
  "$PYTHON" -c '
from selfattn.text import charvec
table = charvec.load_char_vectors()
path = charvec.cache_file(charvec.cache_key(charvec.jieba_dict_path(), charvec.CharVecParams()))
assert path.is_file(), f"the table was not cached at {path}"
print(f"install.sh: {len(table)} characters x {table.dim} dimensions cached in {path}")
'
}

step_check() {
  say "checking imports"
  "$PYTHON" -c '
import selfattn, streamlit, torch, transformers, altair, pandas
from streamlit.web import bootstrap  # the server itself: its modules compiled here, not at the first start
from selfattn.text import charvec
from selfattn.text import models
from ui import streamlit_hooks
streamlit_hooks.check()  # every Streamlit internal the app hooks into, or HookMissing naming it (docs/streamlit-upgrade.md)
build = "CUDA " + torch.version.cuda + " build" if torch.version.cuda else "CPU build"
print(f"install.sh: streamlit {streamlit.__version__}, torch {torch.__version__} ({build}),"
      f" transformers {transformers.__version__}: ok")
'
}

step_prefetch() {
  local -a ids
  read -r -a ids <<< "${SELFATTN_PREFETCH:-bert-base-chinese}"
  say "downloading ${ids[*]} into the Hugging Face cache${HF_ENDPOINT:+ from $HF_ENDPOINT}"
  "$PYTHON" -m selfattn.text.prefetch "${ids[@]}"
}

steps=("$@")
[[ ${#steps[@]} -gt 0 ]] || steps=(deps cache check)
for step in "${steps[@]}"; do
  case "$step" in
    deps|cache|check|prefetch) ;;
    *) echo "install.sh: unknown step '$step' (steps: deps, cache, check, prefetch)" >&2; exit 2 ;;
  esac
done
for step in "${steps[@]}"; do "step_$step"; done
say "done"
