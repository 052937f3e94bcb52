#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Fuzzes scenario, sweep and --set parsing and validation (fuzz/scenario-fuzz.cc) with libFuzzer
# under AddressSanitizer + UndefinedBehaviorSanitizer, for a bounded time. A crash, a sanitizer
# report, a hang (> 10 s on one input) or an escaped exception fails (the input is saved in
# build-fuzz/crashes/). Usage: scripts/fuzz.sh [SECONDS] (default 90).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-90}

scripts/install-deps.sh --fuzz
build=build-fuzz
if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DAIFABRIC_FUZZ=ON -DAIFABRIC_SANITIZE=ON -DAIFABRIC_WERROR=OFF >/dev/null
fi
cmake --build "$build" -j "$(nproc)" --target ai-fabric-scenario-fuzz

# Seed corpus: every shipped scenario (kind byte 0), sweep (1), and a few --set lines (2).
corpus="$build/corpus"
rm -rf "$corpus"
mkdir -p "$corpus" "$build/crashes"
n=0
for f in scenarios/*.json; do
  { printf '\000'; cat "$f"; } >"$corpus/scenario-$((n++))"
done
for f in scenarios/sweeps/*.json; do
  { printf '\001'; cat "$f"; } >"$corpus/sweep-$((n++))"
done
printf '\002topology.servers=4\nfaults.drop_rate=0.001\nworkload.algorithm=ring\n' >"$corpus/set-a"
printf '\002compare=[]\nfabric=infiniband\nworkload.bytes=1048576\n' >"$corpus/set-b"
printf '\002attributes.ns3::SwitchBufferManager::EcnKmin=100000\n' >"$corpus/set-c"
printf '\002workload.kind=training\nworkload.model=mixtral-8x7b\nworkload.parallelism.ep=2\nworkload.parallelism.pp=2\nworkload.parallelism.schedule=interleaved\n' >"$corpus/set-e"
printf '\002fabric=tcp\ntcp.stack=ns3\ntcp.sockets_per_peer=4\ntcp.threads=2\ntcp.tlp=false\n' >"$corpus/set-d"
printf '\002faults.events=[{"at_ms":1,"switch":"spine0","action":"flap","period_ms":1,"until_ms":3}]\nrouting.convergence_ms=5\nrouting.valley_free=false\n' >"$corpus/set-f"
printf '\002faults.events=[{"at_ms":1,"link":"leaf0-spine0","from":"spine0","action":"pause-storm","priority":3,"until_ms":4}]\npfc_watchdog.enabled=true\npfc_watchdog.action=forward\npfc_deadlock.threshold_ms=2\n' >"$corpus/set-h"
printf '\002routing.load_balancing=flowlet\nrouting.flowlet_gap_us=2\nrouting.qps_per_connection=3\nloss_recovery=selective-repeat\n' >"$corpus/set-i"
printf '\002topology.planes=2\nfabric=rocev2\ncompare=[]\nrdma.reorder_threshold=64\nloss_recovery=selective-repeat\nattributes.ns3::RdmaNic::MigrateOnTimeout=true\n' >"$corpus/set-j"
printf '\002jobs=[{"servers":2,"placement":"rail-aligned","fabric":"tcp"},{"servers":1,"workload":{"kind":"chakra"}}]\n' >"$corpus/set-g"

log="$build/fuzz.log"
echo "scenario-fuzz: ${seconds} s from $(ls "$corpus" | wc -l) seed inputs" >&2
set +e
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$build/fuzz/ai-fabric-scenario-fuzz" -max_total_time="$seconds" -max_len=16384 -timeout=10 \
  -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/crashes/" "$corpus" \
  >"$log" 2>&1
rc=$?
set -e
# The coverage and execution figures for the record.
grep -E '^#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb' "$log" | tail -n 4 || true
if [ $rc -ne 0 ]; then
  tail -n 60 "$log" >&2
  echo "scenario-fuzz: FAILED (exit $rc); crashing inputs in $build/crashes/" >&2
  exit 1
fi
echo "scenario-fuzz: no crash"
