# Sourced by .ci/run: the Python matrix and the sdist check, one function each so that each can
# be run alone: bash -c 'source .ci/python.sh && decoding_suites 3.12'.
#
# The machine's interpreters come from pyenv (3.10 to 3.13; older ones are below
# requires-python). Each check gets a fresh venv in a temporary directory, its pip upgraded
# first (the interpreters ship pip 23-24; `pip install --group` needs pip >= 25.1), and
# installs from the package index with no pip cache, as on a new machine.

# The tests about decoding: the wire decoders, partial JSON, the assembler, SSE and AWS event
# streams, the splice fast path and the stream fuzzers.
DECODING_TESTS=(tests/wire tests/json tests/assembly tests/test_sse.py tests/test_eventstream.py
  tests/test_fuzz_streams.py tests/test_errors_after_first_byte.py)

python_for() {  # python_for 3.12 -> the newest pyenv interpreter of that minor version
  local root="${PYENV_ROOT:-$HOME/.pyenv}" found=""
  for candidate in "$root/versions/$1".*/bin/python; do
    [ -x "$candidate" ] && found="$candidate"
  done
  [ -n "$found" ] || { echo "no Python $1 under $root/versions (pyenv install $1)" >&2; return 1; }
  echo "$found"
}

fresh_venv() {  # fresh_venv PYTHON DIR: a venv in DIR with pip >= 25.1, nothing cached
  "$1" -m venv "$2"
  PIP_NO_CACHE_DIR=1 "$2/bin/python" -m pip install -q --upgrade 'pip>=25.1'
}

whole_suite() {  # whole_suite 3.10: the checkout installed in a fresh venv, every test
  local python dir
  python="$(python_for "$1")"
  dir="$(mktemp -d)"
  fresh_venv "$python" "$dir/venv"
  PIP_NO_CACHE_DIR=1 "$dir/venv/bin/pip" install -q -e '.[test]'
  "$dir/venv/bin/python" -m pytest -q -p no:cacheprovider
  rm -rf "$dir"
}

decoding_suites() {  # decoding_suites 3.12: the checkout in a fresh venv, the decoding tests
  local python dir
  python="$(python_for "$1")"
  dir="$(mktemp -d)"
  fresh_venv "$python" "$dir/venv"
  PIP_NO_CACHE_DIR=1 "$dir/venv/bin/pip" install -q -e '.[test]'
  "$dir/venv/bin/python" -m pytest -q -p no:cacheprovider "${DECODING_TESTS[@]}"
  rm -rf "$dir"
}

sdist_suite() {  # sdist_suite 3.13: the sdist unpacked alone, its wheel installed, every test
  local python dir
  python="$(python_for "$1")"
  dir="$(mktemp -d)"
  fresh_venv "$python" "$dir/build-venv"
  PIP_NO_CACHE_DIR=1 "$dir/build-venv/bin/pip" install -q build
  # build makes the sdist, then the wheel from the unpacked sdist alone.
  "$dir/build-venv/bin/python" -m build --outdir "$dir/dist" . >/dev/null
  mkdir "$dir/src" && tar -xzf "$dir"/dist/*.tar.gz -C "$dir/src" --strip-components=1
  fresh_venv "$python" "$dir/venv"
  local wheel=("$dir"/dist/*.whl)
  PIP_NO_CACHE_DIR=1 "$dir/venv/bin/pip" install -q "${wheel[0]}[test]"
  # The installed package: its import name, its console script, its pytest plugin.
  (cd "$dir" && venv/bin/llmkit --version && venv/bin/python - <<'PY')
import importlib.metadata as metadata
import llmkit
assert "site-packages" in llmkit.__file__, llmkit.__file__
assert metadata.version("llmkit-transport") == llmkit.__version__
plugins = metadata.entry_points(group="pytest11")
assert [p.value for p in plugins if p.name == "llmkit"] == ["llmkit._pytest_plugin"], plugins
PY
  (cd "$dir/src" && "$dir/venv/bin/python" -m pytest -q -p no:cacheprovider)
  rm -rf "$dir"
}

concurrently() {  # concurrently TITLE COMMAND [TITLE COMMAND ...]: each COMMAND (a function of
  # this file and its arguments) in the background at once, its output kept in a file and shown
  # whole under its TITLE when it ends, in the order given; fails if any of them failed.
  local dir i status failed=0 titles=() logs=() pids=()
  dir="$(mktemp -d)"
  while [ "$#" -ge 2 ]; do
    titles+=("$1")
    logs+=("$dir/${#titles[@]}.log")
    # shellcheck disable=SC2086  # COMMAND is split into the function and its arguments
    (set -euo pipefail; $2) >"${logs[-1]}" 2>&1 &
    pids+=("$!")
    echo "== started: $1 (its output follows when it ends)"
    shift 2
  done
  for i in "${!pids[@]}"; do
    status=0
    wait "${pids[$i]}" || status=$?
    echo "== ${titles[$i]}"
    cat "${logs[$i]}"
    if [ "$status" -ne 0 ]; then
      echo "!! failed (exit status $status): ${titles[$i]}" >&2
      failed=1
    fi
  done
  rm -rf "$dir"
  return "$failed"
}
