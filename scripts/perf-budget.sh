#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The per-packet instruction budget: runs each case of bench/packet-path-bench under callgrind at
# two sizes, takes the instructions executed inside Simulator::Run, and divides the difference by
# the difference in data packet-hops (set-up and the first and last round trips cancel out).
# Instruction counts are deterministic for one binary, so a change of 0.1% is a real change.
# Fails (exit 1) when a case costs more than 2% above bench/perf-budget.txt.
#
# Usage: scripts/perf-budget.sh [--update] [--build DIR] [--jobs N] [CASE...]
#   --update   rewrite bench/perf-budget.txt with the figures measured now (a deliberate,
#              reviewed edit: say why in the commit message)
#   --build    the build directory holding bench/packet-path-bench (default: build)
#   --jobs     cases measured in parallel (default: the number of CPUs)
#   CASE...    only these cases (default: every case in the budget file)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUDGET="$ROOT/bench/perf-budget.txt"
ALL_CASES=(rdma-nocc rdma-dcqcn rdma-ack rdma-hpcc switch tcp uec)
# Data packets per host of the two runs; their difference is what is measured.
SMALL=256
LARGE=768
TOLERANCE_PERCENT=2

update=0
build="$ROOT/build"
jobs=$(nproc)
cases=()
while [ $# -gt 0 ]; do
  case "$1" in
    --update) update=1 ;;
    --build) build=$(cd "$2" && pwd); shift ;;
    --jobs) jobs="$2"; shift ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "perf-budget: unknown option $1 (allowed: --update, --build DIR, --jobs N)" >&2; exit 2 ;;
    *) cases+=("$1") ;;
  esac
  shift
done
[ ${#cases[@]} -gt 0 ] || cases=("${ALL_CASES[@]}")
for c in "${cases[@]}"; do
  if [[ ! " ${ALL_CASES[*]} " =~ " $c " ]]; then
    echo "perf-budget: unknown case '$c' (allowed: ${ALL_CASES[*]})" >&2
    exit 2
  fi
done
bench="$build/bench/packet-path-bench"
if [ ! -x "$bench" ]; then
  echo "perf-budget: $bench not found (build it: cmake --build build --target packet-path-bench)" >&2
  exit 2
fi
if ! command -v valgrind >/dev/null; then
  echo "perf-budget: needs valgrind (scripts/install-deps.sh --valgrind)" >&2
  exit 2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One run: "<instructions in Simulator::Run> <packet-hops>" into $work/<case>-<packets>.
measure() {
  local c=$1 n=$2 out="$work/$1-$2"
  valgrind --tool=callgrind --callgrind-out-file="$out.cg" --toggle-collect='ns3::Simulator::Run()' \
    "$bench" --case="$c" --packets="$n" >"$out.log" 2>"$out.err" || {
    echo "perf-budget: $c --packets=$n failed:" >&2
    cat "$out.err" >&2
    return 1
  }
  local ir hops
  ir=$(awk '/^(summary|totals):/ { print $2; exit }' "$out.cg")
  hops=$(awk '/packet-hops/ { for (i = 1; i < NF; ++i) if ($i == "packet-hops") print $(i + 1) }' "$out.log")
  echo "$ir $hops" >"$out"
}
export -f measure
export bench work

printf '%s\n' "${cases[@]}" | sed "s/.*/& $SMALL\n& $LARGE/" |
  xargs -P "$jobs" -L 1 bash -c 'measure "$0" "$1"'

status=0
new=()
printf '%-12s %14s %14s %10s\n' case "instr/pkt-hop" budget change
for c in "${cases[@]}"; do
  read -r ir1 hops1 <"$work/$c-$SMALL"
  read -r ir2 hops2 <"$work/$c-$LARGE"
  per=$(( (ir2 - ir1) / (hops2 - hops1) ))
  new+=("$c $per")
  budget=$(awk -v c="$c" '$1 == c { print $2 }' "$BUDGET" 2>/dev/null || true)
  if [ -z "$budget" ]; then
    printf '%-12s %14d %14s %10s\n' "$c" "$per" - new
    [ "$update" = 1 ] || status=1
    continue
  fi
  change=$(awk -v a="$per" -v b="$budget" 'BEGIN { printf "%+.2f%%", (a - b) * 100 / b }')
  printf '%-12s %14d %14d %10s\n' "$c" "$per" "$budget" "$change"
  if [ $(( per * 100 )) -gt $(( budget * (100 + TOLERANCE_PERCENT) )) ]; then
    echo "perf-budget: $c costs $per instructions per packet-hop, more than $TOLERANCE_PERCENT% above its budget of $budget" >&2
    status=1
  fi
done

if [ "$update" = 1 ]; then
  {
    echo "# Instructions per data packet-hop inside Simulator::Run (callgrind), per case of"
    echo "# bench/packet-path-bench; scripts/perf-budget.sh fails on a rise of more than ${TOLERANCE_PERCENT}%."
    echo "# Rewritten by scripts/perf-budget.sh --update: a reviewed edit, its reason in the commit message."
    # Keep the other cases' lines when only some were measured.
    for c in "${ALL_CASES[@]}"; do
      line=$(printf '%s\n' "${new[@]}" | awk -v c="$c" '$1 == c')
      [ -n "$line" ] || line=$(awk -v c="$c" '$1 == c' "$BUDGET" 2>/dev/null || true)
      [ -z "$line" ] || echo "$line"
    done
  } >"$BUDGET.tmp"
  mv "$BUDGET.tmp" "$BUDGET"
  echo "perf-budget: wrote $BUDGET"
  exit 0
fi
[ "$status" = 0 ] && echo "perf-budget: every case within ${TOLERANCE_PERCENT}% of its budget"
exit "$status"
