#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# ctest's python-aifabric: the aifabric package's pytest suite (python/tests) against the built
# runner and sweep binaries.
#   run-tests.sh BUILD_DIR [PYTEST ARGS]
# Needs Debian's python3-pandas, python3-matplotlib and python3-pytest for /usr/bin/python3
# (scripts/install-deps.sh --python). Without them it is skipped (exit 77), saying so, unless
# AIFABRIC_REQUIRE_PYTHON=1 (./ai-fabric test sets it), where it fails.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=$1
shift
PYTHON=${AIFABRIC_PYTHON:-/usr/bin/python3}
if ! "$PYTHON" -c 'import pandas, matplotlib, pytest' 2>/dev/null; then
  echo "python-aifabric: SKIPPED: $PYTHON lacks pandas, matplotlib or pytest;" \
       "scripts/install-deps.sh --python installs them" >&2
  [ "${AIFABRIC_REQUIRE_PYTHON:-0}" = 1 ] && exit 1
  exit 77
fi
export PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}"
export AIFABRIC_RUNNER="$BUILD/ai-fabric-runner" AIFABRIC_SWEEP="$BUILD/ai-fabric-sweep"
export MPLBACKEND=Agg PYTHONDONTWRITEBYTECODE=1
cd "$HERE"
exec "$PYTHON" -m pytest -q -p no:cacheprovider tests "$@"
