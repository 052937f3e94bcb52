#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `ai-fabric run --ranks N` (issue 45): the flow workload of test/mpi/flows-ranks.json (PFC,
# ECN, loss, a link down a while) run sequentially in the partition event order, then on 2 ranks
# (granted time windows) and 4 (null messages), and on Ultra Ethernet NICs and InfiniBand
# sequentially and on 2 ranks; then the collective of test/mpi/collective-ranks.json (the same
# faults) as a scenario of five runs, each split across the ranks: the tuner's AllReduce, a
# tree, InfiniBand, Ultra Ethernet and kernel TCP (the Linux model with NCCL's sockets). Every
# results file must be the sequential run's
# (compare-results.py: summary.json but the run's cost, CSV files byte for byte), and the runs
# must be worth comparing; the collective alone on 4 ranks with null messages too; PFC deadlocks
# found (and broken by the watchdog) on 2 ranks as sequentially; two jobs side by side; a training
# model (test/mpi/training-ranks.json) on 2 and 4 ranks. Then what the runner cannot split (a
# collective over ns-3's own TCP/IP only; two split runs with null messages, whose ns-3 core is
# made once per process) is refused with one line, exit 2, nothing written.
#
#   runner-ranks-test.sh RUNNER MPIEXEC
#
# Exit 0 when all holds, 1 when not, 77 (skipped) without python3 unless
# AIFABRIC_REQUIRE_PYTHON=1.
set -uo pipefail
runner=$1
mpiexec=$2
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v python3 >/dev/null; then
  [ "${AIFABRIC_REQUIRE_PYTHON:-0}" = 1 ] && { echo "python3 is missing"; exit 1; }
  exit 77
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
scenario=$here/flows-ranks.json
fail=0
run() { # NAME ARGS...: a run, its exit status checked
  local name=$1
  shift
  if ! "$@" >"$tmp/$name.log" 2>&1; then
    echo "FAIL: $name: $*"
    cat "$tmp/$name.log"
    fail=1
  fi
}
same() { # A B WHAT
  local verdict
  verdict=$(python3 "$here/compare-results.py" "$tmp/$1" "$tmp/$2")
  echo "$3: $verdict"
  [ "$verdict" = identical ] || fail=1
}
incomplete() { # A B WHAT SCENARIO: sequentially (A) and on 2 ranks (B), exit 3 (incomplete)
  local a=$1 b=$2 what=$3 scenario=$4 sa sb
  "$runner" "$scenario" --quiet --set simulation.event_order=partition --out "$tmp/$a" \
    >"$tmp/$a.log" 2>&1
  sa=$?
  "$mpiexec" -np 2 --oversubscribe "$runner" "$scenario" --quiet --ranks 2 --out "$tmp/$b" \
    >"$tmp/$b.log" 2>&1
  sb=$?
  if [ "$sa" != 3 ] || [ "$sb" != 3 ]; then
    echo "FAIL: $what: exit $sa sequentially, $sb on 2 ranks (3 expected)"
    cat "$tmp/$a.log" "$tmp/$b.log"
    fail=1
    return 1
  fi
  same "$a" "$b" "$what, 2 ranks"
}

run seq "$runner" "$scenario" --quiet --set simulation.event_order=partition --out "$tmp/seq"
run r2 "$mpiexec" -np 2 --oversubscribe "$runner" "$scenario" --quiet --ranks 2 --out "$tmp/r2"
run r4 "$mpiexec" -np 4 --oversubscribe "$runner" "$scenario" --quiet --ranks 4 \
  --sync null-message --out "$tmp/r4"
uec=(--set fabric=uec --set pfc=false)
run useq "$runner" "$scenario" --quiet "${uec[@]}" --set simulation.event_order=partition \
  --out "$tmp/useq"
run u2 "$mpiexec" -np 2 --oversubscribe "$runner" "$scenario" --quiet "${uec[@]}" --ranks 2 \
  --out "$tmp/u2"
ib=(--set fabric=infiniband --set congestion_control=auto)
run iseq "$runner" "$scenario" --quiet "${ib[@]}" --set simulation.event_order=partition \
  --out "$tmp/iseq"
run i2 "$mpiexec" -np 2 --oversubscribe "$runner" "$scenario" --quiet "${ib[@]}" --ranks 2 \
  --out "$tmp/i2"
[ "$fail" = 0 ] || exit 1
same seq r2 "RoCEv2, 2 ranks, granted time windows"
same seq r4 "RoCEv2, 4 ranks, null messages"
same useq u2 "Ultra Ethernet, 2 ranks"
same iseq i2 "InfiniBand, 2 ranks"

# Worth comparing: every flow ended, and PAUSE frames, ECN marks, corrupt frames, frames lost
# to the down link and retransmissions happened; Ultra Ethernet trimmed.
python3 - "$tmp/seq/summary.json" "$tmp/useq/summary.json" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
u = json.load(open(sys.argv[2]))
c = r["counters"]
checks = {
    "every flow ended": r["flows"]["completed"] == r["flows"]["total"] >= 300,
    "PAUSE frames": c["pfc_pause_frames"] > 0,
    "ECN marks": c["ecn_marks"] > 0,
    "corrupt frames": c["drops_corrupt"] > 0,
    "link-down drops": r["faults"]["link_down_drops"] > 0,
    "retransmissions": c["retransmitted_packets"] > 0,
    "UET trims": u["uec"]["trims"] > 0 and u["flows"]["completed"] == u["flows"]["total"],
}
bad = [k for k, ok in checks.items() if not ok]
print("worth comparing:", "yes" if not bad else "NO: " + ", ".join(bad))
sys.exit(1 if bad else 0)
PY

# A collective, and a scenario of runs that split and one that does not.
coll=$tmp/collective.json
python3 - "$here/collective-ranks.json" "$coll" <<'PY'
import json, sys
text = "\n".join(l for l in open(sys.argv[1]) if not l.lstrip().startswith("//"))
s = json.loads(text)
s["compare"] = [{"name": "AllReduce"},
                {"name": "AllReduce tree", "workload": {"algorithm": "tree"}},
                {"name": "InfiniBand", "fabric": "infiniband", "congestion_control": "auto"},
                {"name": "Ultra Ethernet", "fabric": "uec", "pfc": False,
                 "congestion_control": "auto"},
                {"name": "TCP", "fabric": "tcp", "pfc": False}]
json.dump(s, open(sys.argv[2], "w"))
PY
one=$here/collective-ranks.json
run cseq "$runner" "$coll" --quiet --set simulation.event_order=partition --out "$tmp/cseq"
run c2 "$mpiexec" -np 2 --oversubscribe "$runner" "$coll" --quiet --ranks 2 --out "$tmp/c2"
run c4 "$mpiexec" -np 4 --oversubscribe "$runner" "$coll" --quiet --ranks 4 --out "$tmp/c4"
run c1seq "$runner" "$one" --quiet --set simulation.event_order=partition --out "$tmp/c1seq"
run c1n "$mpiexec" -np 4 --oversubscribe "$runner" "$one" --quiet --ranks 4 \
  --sync null-message --out "$tmp/c1n"
[ "$fail" = 0 ] || exit 1
same cseq c2 "Collectives (TCP too), 2 ranks, granted time windows"
same cseq c4 "Collectives (TCP too), 4 ranks, granted time windows"
same c1seq c1n "A collective, 4 ranks, null messages"
python3 - "$tmp/cseq/summary.json" "$tmp/c4/summary.json" <<'PY' || fail=1
import json, sys
seq = json.load(open(sys.argv[1]))["runs"]
four = json.load(open(sys.argv[2]))["runs"]
checks = {}
for r in seq[:2]:
    c = r["counters"]
    checks[r["name"] + ": every step"] = r["steps_completed"] == r["steps"] == 2
    checks[r["name"] + ": PAUSE, ECN, corrupt, retransmitted"] = (
        c["pfc_pause_frames"] > 0 and c["ecn_marks"] > 0 and c["drops_corrupt"] > 0
        and c["retransmitted_packets"] > 0)
    checks[r["name"] + ": link-down drops"] = r["faults"]["link_down_drops"] > 0
checks["the two AllReduces differ"] = seq[0]["algorithm_used"] != seq[1]["algorithm_used"]
checks["InfiniBand: every step, credit updates"] = (
    seq[2]["steps_completed"] == 2 and seq[2]["counters"]["ib_flow_control_packets"] > 0)
checks["Ultra Ethernet: every step, trims"] = (
    seq[3]["steps_completed"] == 2 and seq[3]["uec"]["trims"] > 0)
checks["TCP: every step, retransmitted segments"] = (
    seq[4]["steps_completed"] == 2 and seq[4]["tcp"]["retransmitted_segments"] > 0
    and seq[4]["tcp_message_breakdown_us"]["messages"] > 0)
checks["split on 4 ranks"] = [r["sim"].get("ranks") for r in four] == [4, 4, 4, 4, 4]
bad = [k for k, ok in checks.items() if not ok]
print("worth comparing:", "yes" if not bad else "NO: " + ", ".join(bad))
sys.exit(1 if bad else 0)
PY

# A connection that fails (one retry, a cable down for good): its job stops on every rank at the
# same time (the failure is told to every rank), exit 3 (incomplete), the same results.
python3 - "$one" "$tmp/fail.json" <<'PY'
import json, sys
text = "\n".join(l for l in open(sys.argv[1]) if not l.lstrip().startswith("//"))
s = json.loads(text)
s["faults"] = {"events": [{"at_ms": 0.1, "link": "leaf0-spine1", "action": "down"}]}
s["attributes"]["ns3::RdmaNic::RetryCount"] = "1"
json.dump(s, open(sys.argv[2], "w"))
PY
incomplete fseq f2 "A failed connection" "$tmp/fail.json"

# Several jobs side by side (each a collective; each job's steps merged over the ranks): the
# collective above as two jobs of 8 servers (loss, the link down), on 4 ranks; and
# scenarios/two-jobs.json (two placements, each job also alone) on 2.
python3 - "$one" "$tmp/jobs.json" <<'PY'
import json, sys
text = "\n".join(l for l in open(sys.argv[1]) if not l.lstrip().startswith("//"))
s = json.loads(text)
s["jobs"] = [{"name": "a", "servers": 8, "placement": "contiguous"},
             {"name": "b", "servers": 8, "placement": "spread"}]
json.dump(s, open(sys.argv[2], "w"))
PY
run jseq "$runner" "$tmp/jobs.json" --quiet --set simulation.event_order=partition --out "$tmp/jseq"
run j4 "$mpiexec" -np 4 --oversubscribe "$runner" "$tmp/jobs.json" --quiet --ranks 4 \
  --out "$tmp/j4"
twojobs=$here/../../scenarios/two-jobs.json
run tjseq "$runner" "$twojobs" --quiet --set simulation.event_order=partition --out "$tmp/tjseq"
run tj2 "$mpiexec" -np 2 --oversubscribe "$runner" "$twojobs" --quiet --ranks 2 --out "$tmp/tj2"
[ "$fail" = 0 ] || exit 1
same jseq j4 "Two jobs, 4 ranks"
same tjseq tj2 "two-jobs.json, 2 ranks"
python3 - "$tmp/j4/summary.json" "$tmp/tj2/summary.json" <<'PY' || fail=1
import json, sys
j = json.load(open(sys.argv[1]))
t = json.load(open(sys.argv[2]))["runs"]
checks = {
    "split": j["sim"].get("ranks") == 4 and all(r["sim"].get("ranks") == 2 for r in t),
    "every job's steps": all(e["steps_completed"] == 2 for e in j["jobs"]) and len(j["jobs"]) == 2,
    "PAUSE, retransmitted, link-down drops": j["counters"]["pfc_pause_frames"] > 0
    and j["counters"]["retransmitted_packets"] > 0 and j["faults"]["link_down_drops"] > 0,
    "two-jobs: each job together and alone": all(
        e["steps_completed"] == 3 and e.get("alone_step_ms") for r in t for e in r["jobs"]),
}
bad = [k for k, ok in checks.items() if not ok]
print("worth comparing:", "yes" if not bad else "NO: " + ", ".join(bad))
sys.exit(1 if bad else 0)
PY

# A training model (test/mpi/training-ranks.json: tensor, pipeline and data parallelism; the
# collective's faults, here a cable down 10 ms): every rank runs every GPU's operations, each
# GPU's sends on its own rank; sequentially, on 2 ranks with null messages and on 4 (4 null-message
# ranks on 2 cores take 111 s here, granted time windows 15 s).
train=$here/training-ranks.json
run tseq "$runner" "$train" --quiet --set simulation.event_order=partition --out "$tmp/tseq"
run t2 "$mpiexec" -np 2 --oversubscribe "$runner" "$train" --quiet --ranks 2 \
  --sync null-message --out "$tmp/t2"
run t4 "$mpiexec" -np 4 --oversubscribe "$runner" "$train" --quiet --ranks 4 --out "$tmp/t4"
# ... and as one of two jobs, beside a collective.
python3 - "$train" "$tmp/tjobs.json" <<'PY'
import json, sys
text = "\n".join(l for l in open(sys.argv[1]) if not l.lstrip().startswith("//"))
s = json.loads(text)
s["jobs"] = [{"name": "train", "servers": 8, "placement": "contiguous"},
             {"name": "allreduce", "servers": 8, "placement": "spread",
              "workload": {"kind": "collective", "steps": 2, "compute_ms": 0.05,
                           "collective": "allreduce", "bytes": 8388608}}]
json.dump(s, open(sys.argv[2], "w"))
PY
run trjseq "$runner" "$tmp/tjobs.json" --quiet --set simulation.event_order=partition \
  --out "$tmp/trjseq"
run trj2 "$mpiexec" -np 2 --oversubscribe "$runner" "$tmp/tjobs.json" --quiet --ranks 2 \
  --out "$tmp/trj2"
# ... and as a Chakra trace of it (ai-fabric-chakra export, beside the runner): 4 servers x 4 GPUs.
chakra=$(dirname "$runner")/ai-fabric-chakra
model=(--set workload.kind=training --set topology.servers=4 --set topology.gpus_per_server=4
  --set workload.model_shape.layers=4 --set workload.model_shape.seq_len=1024
  --set workload.parallelism.tp=4 --set workload.parallelism.pp=2
  --set workload.parallelism.microbatches=4 --set workload.parallelism.zero=1)
run cexport "$chakra" export "${model[@]}" --out "$tmp/trace"
replay=(--set compare=[] --set workload.kind=chakra --set "workload.trace=$tmp/trace"
  --set topology.servers=4 --set topology.gpus_per_server=4 --set workload.steps=2)
default=$here/../../scenarios/default.json
run chseq "$runner" "$default" --quiet "${replay[@]}" --set simulation.event_order=partition \
  --out "$tmp/chseq"
run ch2 "$mpiexec" -np 2 --oversubscribe "$runner" "$default" --quiet "${replay[@]}" --ranks 2 \
  --out "$tmp/ch2"
# ... and over kernel TCP, whose steps are blamed on timeouts fired on either rank.
tcp=(--set fabric=tcp --set pfc=false)
run ttseq "$runner" "$train" --quiet "${tcp[@]}" --set simulation.event_order=partition \
  --out "$tmp/ttseq"
run tt2 "$mpiexec" -np 2 --oversubscribe "$runner" "$train" --quiet "${tcp[@]}" --ranks 2 \
  --out "$tmp/tt2"
[ "$fail" = 0 ] || exit 1
same ttseq tt2 "A training model over kernel TCP, 2 ranks"
same chseq ch2 "A Chakra trace, 2 ranks"
same tseq t2 "A training model, 2 ranks, null messages"
same tseq t4 "A training model, 4 ranks, granted time windows"
same trjseq trj2 "A training job beside a collective job, 2 ranks"
python3 - "$tmp/t4/summary.json" "$tmp/trj2/summary.json" "$tmp/tt2/summary.json" <<'PY' || fail=1
import json, sys
s = json.load(open(sys.argv[1]))
jobs = json.load(open(sys.argv[2]))["jobs"]
tcp = json.load(open(sys.argv[3]))
c = s["counters"]
ph = s["training"]["phases_ms"]
checks = {
    "split": s["sim"].get("ranks") == 4,
    "every step": s["steps_completed"] == s["steps"] == 2,
    "TP, PP and DP time": ph["tp_exposed"] > 0 and ph["pp_bubble"] > 0 and ph["dp_exposed"] > 0,
    "PAUSE, retransmitted, link-down drops": c["pfc_pause_frames"] > 0
    and c["retransmitted_packets"] > 0 and s["faults"]["link_down_drops"] > 0,
    "a step blamed on a timeout": [b["cause"] for b in s["barrier"]] == ["timeout", "retransmission"],
    "both jobs": [(j["name"], j["steps_completed"]) for j in jobs] == [("train", 2), ("allreduce", 2)],
    "TCP: steps blamed on timeouts": [b["cause"] for b in tcp["barrier"]] == ["timeout", "timeout"]
    and tcp["tcp"]["timeouts"] > 0,
}
bad = [k for k, ok in checks.items() if not ok]
print("worth comparing:", "yes" if not bad else "NO: " + ", ".join(bad))
sys.exit(1 if bad else 0)
PY

# A NIC's pause storm (only its own rank storms; every rank counts it) stalling another job,
# without and with the watchdog: scenarios/pfc-storm.json, exit 3 (a job stalls) in both.
storm=$here/../../scenarios/pfc-storm.json
incomplete sseq s2 "A pause storm and the watchdog, two jobs" "$storm"

# PFC deadlocks and the watchdog across ranks (scenarios/pfc-deadlock.json: a ring of 8 paused
# queues over 4 leaves and 4 spines; the same with the watchdog breaking it; valley-free
# routing, whose writes between opposite leaves fail): each rank polls its own switches and the
# search runs on what every rank found. Exit 3 (incomplete) in both, the same results.
pfcdl=$here/../../scenarios/pfc-deadlock.json
if incomplete dseq d2 "PFC deadlock and watchdog" "$pfcdl"; then
  python3 - "$tmp/d2/summary.json" <<'PY' || fail=1
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
h = [r["pfc_health"] for r in runs]
checks = {
    "split": all(r["sim"].get("ranks") == 2 for r in runs),
    "a cycle of 8 queues found": len(h[0]["deadlocks"]) == 1 and len(h[0]["deadlocks"][0]["queues"]) == 8,
    "the watchdog broke deadlocks": h[1]["watchdog"]["storms_detected"] > 0 and len(h[1]["deadlocks"]) > 0,
    "valley-free: none": h[2]["deadlocks"] == [],
}
bad = [k for k, ok in checks.items() if not ok]
print("worth comparing:", "yes" if not bad else "NO: " + ", ".join(bad))
sys.exit(1 if bad else 0)
PY
fi

# Refused with one line, exit 2, nothing written: a scenario whose every run is one the ranks
# cannot split (ns-3's own TCP/IP).
refused() { # WHAT EXPECTED ARGS... (on $ranks ranks, 2 unless set)
  local what=$1 expected=$2 np=${ranks:-2}
  shift 2
  rm -rf "$tmp/refused"
  "$mpiexec" --quiet -np "$np" --oversubscribe "$runner" "$@" --ranks "$np" --quiet \
    --out "$tmp/refused" >"$tmp/refused.out" 2>"$tmp/refused.err"
  local status=$?
  local lines
  lines=$(grep -c . "$tmp/refused.err")
  if [ "$status" != 2 ] || [ "$lines" != 1 ] || ! grep -q -- "$expected" "$tmp/refused.err" ||
    [ -e "$tmp/refused" ]; then
    echo "FAIL: $what on $np ranks: exit $status, $lines lines:"
    cat "$tmp/refused.err"
    fail=1
  else
    echo "refused ($what): $(cat "$tmp/refused.err")"
  fi
}
refused "ns-3's TCP only" "--ranks: tcp.stack: ns-3's own TCP/IP" "$one" --set fabric=tcp \
  --set pfc=false --set tcp.stack=ns3
# Ranks that share no cable (messages between ranks travel on cut cables): 4 ranks on the
# storm's 2 leaves, one line from rank 0.
ranks=4 refused "ranks without a cable" "--ranks: must leave a cable between every two ranks" \
  "$storm"
refused "two split runs, null messages" "--sync null-message: one run split" "$coll" \
  --sync null-message
exit $fail
