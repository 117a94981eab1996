#!/usr/bin/env bash
# Install everything the tests need on a fresh machine, then run the whole suite.
#   bash scripts/test.sh            # all tests (library, CLI, app, real browser)
#   bash scripts/test.sh -m "not browser"   # extra arguments go to pytest (-n 0: one process)
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check -r requirements-dev.txt

# Real-browser tests drive Debian's Chromium (never `playwright install`: it cannot download here);
# the Graphviz reader tests lay graphs out with Graphviz's own `dot`.
NEED=""
[ -x /usr/bin/chromium ] || NEED="chromium"
command -v dot >/dev/null || NEED="$NEED graphviz"
if [ -n "$NEED" ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq $NEED >/dev/null
fi

# Datasets that may not be committed (Email) are read from GOAT_DATA_DIR.
export GOAT_DATA_DIR="${GOAT_DATA_DIR:-$(cd .. && pwd)/shared/data}"
export GOAT_OFFLINE=1
# 2-core machines: one intra-op thread per process (pytest, the Streamlit server under test)
# beats two spin-waiting OpenMP threads competing with Chromium; see BENCHMARKS.md, threads.
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
export NUMBA_CACHE_DIR="${NUMBA_CACHE_DIR:-$PWD/.venv/numba-cache}"
# Two worker processes (pytest-xdist): about 40 % less time on 2 cores (BENCHMARKS.md, The test suite).
exec .venv/bin/python -m pytest -n 2 "$@"
