#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# ctest's browser-report: a tiny run (two fabrics) and a tiny sweep (fabric x drop rate), their
# results pages loaded in headless Chromium and checked through the DOM (report-test.mjs).
#   run-browser-test.sh BUILD_DIR [SCREENSHOT_DIR]
# Needs Debian's chromium and test/browser/node_modules (scripts/install-deps.sh --browser).
# Without them it is skipped (exit 77), unless AIFABRIC_REQUIRE_BROWSER=1 (CI), where it fails.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=$1
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
missing=""
[ -x "$CHROMIUM" ] || missing="$CHROMIUM"
[ -f "$HERE/node_modules/playwright-core/package.json" ] || missing="$missing test/browser/node_modules"
command -v node >/dev/null || missing="$missing node"
if [ -n "$missing" ]; then
  echo "browser test: missing$( [ -n "$missing" ] && echo " $missing"); scripts/install-deps.sh --browser installs them" >&2
  [ "${AIFABRIC_REQUIRE_BROWSER:-0}" = 1 ] && exit 1
  exit 77
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/aif-browser.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
SHOTS=${2:-$WORK}
cat >"$WORK/run.json" <<'JSON'
{"name": "browser-run", "topology": {"kind": "star", "servers": 2, "gpus_per_server": 4},
 "workload": {"steps": 3, "compute_ms": 1, "bytes": 4194304, "algorithm": "ring"},
 "compare": [{"name": "RoCEv2 PFC+DCQCN", "fabric": "rocev2"},
             {"name": "TCP 0.1% loss", "fabric": "tcp", "pfc": false, "faults": {"drop_rate": 0.001}}]}
JSON
cat >"$WORK/sweep.json" <<'JSON'
{"name": "browser-sweep",
 "base": {"name": "tiny", "topology": {"kind": "star", "servers": 2, "gpus_per_server": 4},
          "workload": {"steps": 2, "compute_ms": 1, "bytes": 4194304, "algorithm": "ring"}},
 "grid": {"fabric": ["rocev2", "tcp"], "faults.drop_rate": [0, 0.001]}, "seeds": [1]}
JSON
"$BUILD/ai-fabric-runner" "$WORK/run.json" --quiet --out "$WORK/run"
"$BUILD/ai-fabric-sweep" "$WORK/sweep.json" --out "$WORK/sweep" -j 2 >/dev/null
"$BUILD/ai-fabric-sweep" gather "$WORK/sweep" >/dev/null
mkdir -p "$SHOTS"
CHROMIUM="$CHROMIUM" node "$HERE/report-test.mjs" "$WORK/run" "$WORK/sweep/gathered" "$SHOTS"
