#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# CI check of the Slurm engine against a real Slurm: start a one-node cluster on localhost,
# run scenarios/sweeps/tiny.json with the local engine and as a Slurm job array, and check that
# the gathered CSVs are equal except for wall time and memory; then, with an MPI build, one
# simulation on 2 ranks launched by srun. The daemons are stopped on exit.
# Needs root, slurm-wlm and munge, and a build (./ai-fabric build).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${AIFABRIC_BUILD_DIR:-$ROOT/build}
SWEEP="$BUILD/ai-fabric-sweep"
FILE="$ROOT/scenarios/sweeps/tiny.json"
T=$(mktemp -d /tmp/ai-fabric-slurm-check.XXXXXX)
start=$(date +%s)

cleanup() {
  "$ROOT/scripts/slurm-local-cluster.sh" stop || true
  rm -rf "$T"
}
trap cleanup EXIT

fail() {
  echo "slurm-check: FAILED: $*" >&2
  exit 1
}

"$ROOT/scripts/slurm-local-cluster.sh" start
eval "$("$ROOT/scripts/slurm-local-cluster.sh" env)"

echo "== local engine"
"$SWEEP" "$FILE" --engine local -j 2 --quiet --out "$T/local"

echo "== slurm engine"
"$SWEEP" "$FILE" --engine slurm --throttle 2 --time 5 --mem 500M --out "$T/slurm" | tee "$T/submit.txt"
job=$(sed -n 's/^submitted job \([0-9]*\):.*/\1/p' "$T/submit.txt")
[ -n "$job" ] || fail "no job id in the sbatch output"
grep -q '^#SBATCH --array=0-7%2$' "$T"/slurm/slurm/array-*.sbatch || fail "the job array is not 0-7%2"

# Wait for the array: --status exits 3 while points are pending or running.
rc=3
for _ in $(seq 1 300); do
  set +e
  "$SWEEP" --status "$T/slurm" >"$T/status.txt"
  rc=$?
  set -e
  [ "$rc" -ne 3 ] && break
  sleep 1
done
cat "$T/status.txt"
[ "$rc" -eq 0 ] || { tail -n 20 "$T"/slurm/logs/*.log >&2 || true; fail "--status exit $rc after waiting"; }
grep -q "8 done, 0 running, 0 pending, 0 failed" "$T/status.txt" || fail "not every point is done"
grep -q "engine=slurm job=${job}_" "$T"/slurm/logs/*.log || fail "the logs do not name the Slurm job"

echo "== gather both and compare"
"$SWEEP" gather "$T/local" >/dev/null
"$SWEEP" gather "$T/slurm" >/dev/null
# Drop the columns that measure the machine, not the network: wall time and memory.
strip() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "sim.wall_s" || $i == "sim.peak_rss_mb") skip[i] = 1 }
           { out = ""; for (i = 1; i <= NF; i++) if (!(i in skip)) out = out (out == "" ? "" : ",") $i; print out }' "$1"
}
strip "$T/local/gathered/results.csv" >"$T/local.csv"
strip "$T/slurm/gathered/results.csv" >"$T/slurm.csv"
[ "$(wc -l <"$T/local.csv")" -eq 9 ] || fail "expected 8 rows and a header"
head -1 "$T/local.csv" | grep -q '^point_id,seed,fabric,faults.drop_rate,run,' || fail "unexpected CSV columns"
diff "$T/local.csv" "$T/slurm.csv" >&2 || fail "the Slurm engine's results differ from the local engine's"

echo "== re-submitting a finished sweep submits nothing"
"$SWEEP" "$FILE" --engine slurm --out "$T/slurm" | grep -q "nothing submitted" || fail "a finished sweep was re-submitted"

echo "== one simulation on 2 MPI ranks in a Slurm allocation (srun --mpi=pmix)"
# The fabric-cut test (test/mpi) is built only with ns-3's mpi module (scripts/ns3-mpi.sh).
CUT="$BUILD/ai-fabric-fabric-cut-test"
if [ -x "$CUT" ]; then
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    srun -n 2 --overcommit --mpi=pmix --time 5 "$CUT" --sync=null-message --faults >"$T/mpi.txt" 2>&1 ||
    { cat "$T/mpi.txt" >&2; fail "srun of the 2-rank fabric cut failed"; }
  grep -q '^identical$' "$T/mpi.txt" ||
    { cat "$T/mpi.txt" >&2; fail "the 2-rank run under Slurm differs from the sequential one"; }
  tail -n 1 "$T/mpi.txt"
else
  echo "skipped: no MPI build"
fi

echo "== slurm check passed (job $job) in $(( $(date +%s) - start )) s"
