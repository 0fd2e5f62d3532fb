#!/usr/bin/env bash
# Build llama.cpp's llama-server from the sources vendored in the llama-cpp-python sdist on PyPI.
#
#   tests/integration/build_llama_server.sh [DIR]
#
# DIR (default $LLMKIT_LLAMA_DIR, else ~/.cache/llmkit-llama) receives the sdist, its unpacked
# sources and the build; nothing is written into the repository. The last line printed is the
# path of the binary. A second run finds the binary and does nothing (the cache). CPU only, one
# static binary; about 15 minutes with two jobs, 35 with one (LLMKIT_BUILD_JOBS, default 2).
# Needs cmake, a C++17 compiler and python3 with pip (Debian: cmake g++ python3-venv).
set -euo pipefail

VERSION=0.3.36  # llama-cpp-python; it vendors ggml-org/llama.cpp@0c1e57098
DIR=${1:-${LLMKIT_LLAMA_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/llmkit-llama}}
SRC="$DIR/llama_cpp_python-$VERSION/vendor/llama.cpp"
BIN="$SRC/build/bin/llama-server"

if [ ! -x "$BIN" ]; then
  mkdir -p "$DIR"
  if [ ! -d "$SRC" ]; then
    # The sdist (not a wheel): it carries llama.cpp's full source tree, gguf-py included.
    python3 -m pip download --quiet --no-deps --no-binary :all: \
      "llama-cpp-python==$VERSION" -d "$DIR"
    tar -xzf "$DIR/llama_cpp_python-$VERSION.tar.gz" -C "$DIR"
  fi
  # LLAMA_OPENSSL=OFF: no TLS needed on loopback. LLAMA_USE_PREBUILT_UI=OFF: otherwise the
  # build downloads the web UI. BUILD_SHARED_LIBS=OFF: one self-contained binary to cache.
  cmake -S "$SRC" -B "$SRC/build" -DCMAKE_BUILD_TYPE=Release \
    -DLLAMA_OPENSSL=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF
  cmake --build "$SRC/build" --target llama-server -j "${LLMKIT_BUILD_JOBS:-2}"
fi
echo "$BIN"
