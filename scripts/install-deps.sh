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
# --mpi adds Debian's OpenMPI and dpkg-dev, and a deb-src entry for the release's own archive
# when none is configured (so `apt-get source ns3` works), for scripts/ns3-mpi.sh, which builds
# ns-3's mpi module from Debian's ns-3 source (Debian's ns-3 is built without it).
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
if [ "${1:-}" = "--mpi" ]; then
  PKGS=(libopenmpi-dev openmpi-bin dpkg-dev)
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

# Source packages of the release's main archive, once its binary packages are there: a deb-src
# entry copying the archive address of the configured binary entry, written only when
# `apt-get source ns3` cannot find the source (the machine's own entries are left as they are).
mpi_sources() {
  [ "${1:-}" = "--mpi" ] || return 0
  apt-get source --print-uris ns3 >/dev/null 2>&1 && return 0
  local codename uri list=/etc/apt/sources.list.d/ai-fabric-deb-src.sources
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  uri=$(apt-get indextargets --format '$(REPO_URI)' "Target-Of: deb" "Release: $codename" \
          "Component: main" | sort -u | head -n 1)
  if [ -z "$codename" ] || [ -z "$uri" ]; then
    echo "ai-fabric: no apt entry for the main archive of '${codename:-?}' to copy as deb-src" >&2
    return 1
  fi
  echo "ai-fabric: adding $list (deb-src $codename main)" >&2
  printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\n' "$uri" "$codename" |
    $SUDO tee "$list" >/dev/null
  $SUDO apt-get update -qq
}

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  npm_packages "${1:-}"
  mpi_sources "${1:-}"
  exit 0
fi

echo "ai-fabric: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
npm_packages "${1:-}"
mpi_sources "${1:-}"
