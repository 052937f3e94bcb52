#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The collective validation table of doc/ai-fabric.rst ("Validation: collectives against
# published nccl-tests numbers"): ./ai-fabric nccl-tests on the published cluster shapes, at
# 64 MiB and 1 GiB, printed as one line per configuration. Usage: scripts/nccl-validation.sh
# [BUILD_DIR] (default build/). Takes about 10 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bin="$build/ai-fabric-nccl-tests"
[ -x "$bin" ] || { echo "nccl-validation: build first (./ai-fabric build)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
n=0
row() { # label, then nccl-tests arguments
  local label=$1
  shift
  n=$((n + 1))
  "$bin" scenarios/default.json --quiet --out "$out/$n" -b 64M -e 1G -f 16 "$@" >/dev/null
  awk -F, -v label="$label" 'NR > 1 { printf "%s%s %.1f", (NR == 2 ? label : ""), (NR == 2 ? ":" : " /"), $8 }
    END { print " GB/s (64 MiB / 1 GiB)" }' "$out/$n/nccl-tests.csv"
}
one=(--set compare=[] --set workload.algorithm=ring)
auto=(--set compare=[])
row "1 x 8 H100, NVLink ring" "${one[@]}" --set topology.servers=1
row "1 x 8 H100, auto (NVLS)" "${auto[@]}" --set topology.servers=1
for servers in 2 4 16; do
  for fabric in infiniband rocev2; do
    row "$servers x 8 H100, 400G $fabric, ring" "${one[@]}" --set topology.servers=$servers \
      --set fabric=$fabric
    row "$servers x 8 H100, 400G $fabric, auto" "${auto[@]}" --set topology.servers=$servers \
      --set fabric=$fabric
  done
done
for fabric in infiniband rocev2; do
  for algorithm in tree nvls-tree; do
    row "16 x 8 H100, 400G $fabric, $algorithm" "${auto[@]}" --set fabric=$fabric \
      --set workload.algorithm=$algorithm
  done
done
# InfiniBand with SHARP switches: NCCL's CollNet Direct.
for servers in 2 16; do
  row "$servers x 8 H100, 400G infiniband + SHARP, collnet" "${auto[@]}" --set fabric=infiniband \
    --set infiniband.sharp=true --set topology.servers=$servers --set workload.algorithm=collnet
done
row "16 x 8 H100, 400G rocev2, hierarchical" --set compare=[] --set workload.algorithm=hierarchical
# DGX A100: NVLink3 300 GB/s per direction, no NVLS, 8 x 200G HDR NICs.
row "4 x 8 A100, 200G infiniband, auto" "${auto[@]}" --set topology.servers=4 \
  --set fabric=infiniband --set topology.link_gbps=200 \
  --set gpu.model=a100-sxm
