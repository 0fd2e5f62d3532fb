#!/usr/bin/env bash
# The llama-server integration suite in one command (see README.md beside this file):
#
#   tests/integration/run.sh [pytest arguments]
#
# Builds llama-server once (build_llama_server.sh, cached in $LLMKIT_LLAMA_DIR, default
# ~/.cache/llmkit-llama), writes the tiny model there with a small venv that has numpy and
# pyyaml, then runs tests/integration with the repository's .venv (created if missing).
# LLMKIT_LLAMA_RECORD=<dir> also writes the captures (tests/fixtures/llama-server/).
set -euo pipefail
cd "$(dirname "$0")/../.."

DIR=${LLMKIT_LLAMA_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/llmkit-llama}
BIN=$(tests/integration/build_llama_server.sh "$DIR" | tail -n 1)

MODEL="$DIR/tiny.gguf"
if [ ! -f "$MODEL" ] || [ tests/integration/make_tiny_model.py -nt "$MODEL" ]; then
  if [ ! -x "$DIR/venv/bin/python" ]; then
    python3 -m venv "$DIR/venv"
    "$DIR/venv/bin/pip" install --quiet numpy pyyaml
  fi
  "$DIR/venv/bin/python" tests/integration/make_tiny_model.py \
    --gguf-py "$(dirname "$BIN")/../../gguf-py" "$MODEL"
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv && .venv/bin/pip install --quiet -e '.[test]'
fi
LLMKIT_LLAMA_SERVER="$BIN" LLMKIT_LLAMA_MODEL="$MODEL" \
  exec .venv/bin/python -m pytest tests/integration -p no:cacheprovider "$@"
