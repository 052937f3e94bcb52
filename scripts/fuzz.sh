#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Fuzzes scenario, sweep and --set parsing and validation (fuzz/scenario-fuzz.cc) with libFuzzer
# under AddressSanitizer + UndefinedBehaviorSanitizer, for a bounded time. A crash, a sanitizer
# report, a hang (> 10 s on one input) or an escaped exception fails (the input is saved in
# build-fuzz/crashes/). Then the Chakra trace reader (fuzz/chakra-fuzz.cc) for CHAKRA_SECONDS.
# Usage: scripts/fuzz.sh [SECONDS] [CHAKRA_SECONDS] (default 90 and 30).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-90}
chakra_seconds=${2:-30}

scripts/install-deps.sh --fuzz
build=build-fuzz
if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DAIFABRIC_FUZZ=ON -DAIFABRIC_SANITIZE=ON -DAIFABRIC_WERROR=OFF -DAIFABRIC_MPI=OFF >/dev/null
fi
cmake --build "$build" -j "$(nproc)" --target ai-fabric-scenario-fuzz ai-fabric-chakra-fuzz \
  ai-fabric-chakra

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
# Hostile names (control characters reach file names, CSV rows and gnuplot scripts), tiny
# values the schema accepts (they used to abort or hang ns-3), special files as inputs.
printf '\002name="a\\nsystem(\\"id\\")"\ncompare=[{"name":"=cmd|x\\r"}]\n' >"$corpus/set-names"
printf '\002jobs=[{"name":"j\\u001b[31m","servers":1},{"name":"-x,y","servers":1}]\n' >"$corpus/set-jobs"
printf '\002gpu.nvlink_gbytes_per_s=1e-12\npfc_deadlock.poll_ms=1e-12\nrdma.retransmit_timeout_ms=1e-9\n' >"$corpus/set-tiny-a"
printf '\002topology.planes=8\ntopology.link_gbps=1e-9\nfaults.random.mtbf_hours=1e-12\n' >"$corpus/set-tiny-b"
printf '\002workload.kind=flows\nworkload.flows.load=1e-300\nworkload.flows.incast={"fanin":1,"period_us":1e-9}\n' >"$corpus/set-tiny-c"
printf '\002workload.kind=training\ngpu.peak_tflops=1e-300\ngpu.hbm_tbytes_per_s=1e-300\n' >"$corpus/set-tiny-d"
printf '\002faults.events=[{"at_ms":0,"link":"gpu0","action":"flap","period_ms":1e-9,"until_ms":1}]\n' >"$corpus/set-tiny-e"
printf '\002workload.flows.cdf=/dev/zero\nworkload.kind=chakra\nworkload.trace=/dev/zero\n' >"$corpus/set-special"
printf '\002gpu.peak_tflops=1e-300\ngpu.compute_efficiency=1e-300\ngpu.hbm_tbytes_per_s=1e-300\n' >"$corpus/set-tiny-f"
printf '\002faults.random.mtbf_hours=1e-6\nfaults.random.repair_ms=0.001\nfaults.random.host_links=true\nlimits.max_sim_seconds=1e6\n' >"$corpus/set-random"
printf '\002workload.kind=training\nworkload.channels=2\nworkload.chunks=4\njobs=[{"name":"\\"a,b\\"","servers":1},{"name":"@x","servers":1}]\n' >"$corpus/set-training"

# Chakra seeds: a small training step exported by ai-fabric chakra export (the ranks' files
# joined with the target's marker), and traces of other tools' shapes are built by the tests.
ccorpus="$build/corpus-chakra"
rm -rf "$ccorpus" "$build/chakra-seed"
mkdir -p "$ccorpus"
if "$build/ai-fabric-chakra" export scenarios/training-llama3-8b.json --set topology.servers=1 \
  --set topology.gpus_per_server=2 --set workload.parallelism.tp=2 \
  --set workload.model_shape.layers=1 --set workload.parallelism.microbatches=1 \
  --out "$build/chakra-seed" >/dev/null 2>&1; then
  { printf '\001'; cat "$build/chakra-seed/trace.0.et"; printf '\376\375\374';
    cat "$build/chakra-seed/trace.1.et"; } >"$ccorpus/export-2"
  { printf '\201'; cat "$build/chakra-seed/trace.0.et"; printf '\376\375\374';
    cat "$build/chakra-seed/trace.1.et"; printf '\376\375\374';
    cat "$build/chakra-seed/comm_group.json"; } >"$ccorpus/export-2-groups"
fi
printf '\000' >"$ccorpus/empty"

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

log="$build/fuzz-chakra.log"
echo "chakra-fuzz: ${chakra_seconds} s from $(ls "$ccorpus" | wc -l) seed inputs" >&2
set +e
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$build/fuzz/ai-fabric-chakra-fuzz" -max_total_time="$chakra_seconds" -max_len=65536 \
  -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/crashes/chakra-" \
  "$ccorpus" >"$log" 2>&1
rc=$?
set -e
grep -E '^#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb' "$log" | tail -n 4 || true
if [ $rc -ne 0 ]; then
  tail -n 60 "$log" >&2
  echo "chakra-fuzz: FAILED (exit $rc); crashing inputs in $build/crashes/" >&2
  exit 1
fi
echo "chakra-fuzz: no crash"
