#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Installs the Debian 12 packages ai-fabric needs (idempotent: does nothing when all are there).
# --slurm adds Slurm and munge, for the CI check that runs a one-node cluster on localhost
# (scripts/slurm-check.sh); submitting sweeps to a real cluster needs only its own sbatch.
# --format adds clang-format (Debian 12: version 14), for scripts/check-format.sh.
# --fuzz adds clang and its libFuzzer runtime, for scripts/fuzz.sh.
# --valgrind adds valgrind, for the per-packet instruction budget (scripts/perf-budget.sh).
# --browser adds Debian's Chromium (and Node.js when the machine has none) and installs the
# browser test's npm packages (test/browser: playwright-core, pinned by its package-lock.json)
# with `npm ci`, for the results-page test in a real browser (test/browser/run-browser-test.sh).
# --python adds Debian's pandas, matplotlib and pytest for /usr/bin/python3, for the aifabric
# package (python/) and its tests; ./ai-fabric run does not need them.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

PKGS=(
  g++ cmake ninja-build pkg-config
  libns3-dev ns3          # ns-3.37 libraries and headers; 'ns3' has helper binaries its CMake config checks
  libgsl-dev              # ns-3 headers pull in GSL
  nlohmann-json3-dev      # scenario files
  libprotobuf-dev protobuf-compiler  # Chakra execution traces (ChakraTrace; optional at build time)
  libgtest-dev            # tests
  gnuplot-nox             # figures
  tshark                  # tests decode our pcap files (RoCEv2 BTH, PFC)
)

if [ "${1:-}" = "--slurm" ]; then
  PKGS+=(slurm-wlm munge)
fi
if [ "${1:-}" = "--format" ]; then
  PKGS=(clang-format)
fi
if [ "${1:-}" = "--fuzz" ]; then
  PKGS=(clang libclang-rt-14-dev)
fi
if [ "${1:-}" = "--python" ]; then
  PKGS=(python3 python3-pandas python3-matplotlib python3-pytest)
fi
if [ "${1:-}" = "--valgrind" ]; then
  PKGS=(valgrind)
fi
if [ "${1:-}" = "--browser" ]; then
  PKGS=(chromium fonts-dejavu-core)
  command -v node >/dev/null || PKGS+=(nodejs npm)
fi

# The browser test's npm packages, once the packages above are there.
npm_packages() {
  [ "${1:-}" = "--browser" ] || return 0
  if [ ! -f "$ROOT/test/browser/node_modules/playwright-core/package.json" ]; then
    echo "ai-fabric: npm ci in test/browser (playwright-core)" >&2
    (cd "$ROOT/test/browser" && npm ci --no-audit --no-fund --loglevel=error >&2)
  fi
}

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  npm_packages "${1:-}"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
echo "ai-fabric: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
npm_packages "${1:-}"
