#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Installs the Debian 12 packages ai-fabric needs (idempotent: does nothing when all are there).
# --slurm adds Slurm and munge, for the CI check that runs a one-node cluster on localhost
# (scripts/slurm-check.sh); submitting sweeps to a real cluster needs only its own sbatch.
# --format adds clang-format (Debian 12: version 14), for scripts/check-format.sh.
# --fuzz adds clang and its libFuzzer runtime, for scripts/fuzz.sh.
set -euo pipefail

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

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
echo "ai-fabric: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
