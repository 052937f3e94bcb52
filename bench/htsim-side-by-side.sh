#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The side-by-side with htsim's RoCE simulator (htsim_roce, UEC's uet-htsim or csg-htsim): runs
# one htsim connection matrix alternately in htsim and in bench/connection-matrix-bench (with
# our default ACK coalescing and with an ACK per packet), and prints each run's CPU time (user +
# system), the load average, the fastest and median flow completion times, then the medians and
# their ratios, and the ratios paired round by round. With --before, a second build runs in each
# round too (a change's before and after).
#
# Usage: bench/htsim-side-by-side.sh --htsim PATH --matrix FILE --end US [--rounds N]
#                                    [--build DIR] [--before DIR]
#   --htsim    the htsim_roce binary (htsim/sim/datacenter, target htsim_roce)
#   --matrix   the connection matrix (htsim's gen_permutation.py writes one)
#   --end      htsim's -end in microseconds: just after its slowest flow (htsim's sources keep
#              waking until then, so a later end costs htsim CPU; its output names the flows'
#              finish times)
#   --rounds   alternations (default 3)
#   --build    the build directory holding bench/connection-matrix-bench (default: build)
#   --before   another build directory whose bench runs in the same rounds (e.g. main's)
#   --hugepages ours (default: our bench runs with glibc.malloc.hugetlb=1, as ./ai-fabric
#              runs the simulators), both (htsim too), or none
#   --pages    also run our default mode with 4 KiB pages in each round ("default-4k")
# htsim runs the equivalent of the bench's setup: 3-tier k-ary fat-tree, 400 Gb/s, MTU 4096,
# lossless queues with PFC, no congestion control, every link 250 ns, per-flow ECMP.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
htsim=""
matrix=""
end=""
rounds=3
build="$ROOT/build"
before=""
hugepages=ours
pages=0
fail() {
  echo "htsim-side-by-side: $1" >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
    --htsim) htsim="${2:-}"; shift ;;
    --matrix) matrix="${2:-}"; shift ;;
    --end) end="${2:-}"; shift ;;
    --rounds) rounds="${2:-}"; shift ;;
    --build) build="${2:-}"; shift ;;
    --before) before="${2:-}"; shift ;;
    --hugepages) hugepages="${2:-}"; shift ;;
    --pages) pages=1 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) fail "unknown option $1 (allowed: --htsim, --matrix, --end, --rounds, --build, --before, --hugepages, --pages)" ;;
  esac
  shift
done
[ -x "$htsim" ] || fail "--htsim must name the htsim_roce binary (got '$htsim')"
[ -r "$matrix" ] || fail "--matrix must name a readable connection matrix (got '$matrix')"
[[ "$end" =~ ^[1-9][0-9]*$ ]] || fail "--end must be an integer >= 1 (microseconds; got '$end')"
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || fail "--rounds must be an integer >= 1 (got '$rounds')"
case "$hugepages" in ours | both | none) ;; *) fail "--hugepages must be ours, both or none (got '$hugepages')" ;; esac
# GLIBC_TUNABLES for each side: huge pages for malloc's heap, or nothing.
THP=glibc.malloc.hugetlb=1
ours_tun=""
htsim_tun=""
[ "$hugepages" != none ] && ours_tun=$THP
[ "$hugepages" = both ] && htsim_tun=$THP
modes=(default ack)
[ "$pages" = 1 ] && modes=(default default-4k ack)
bench="$build/bench/connection-matrix-bench"
[ -x "$bench" ] || fail "$bench not found (build it: cmake --build build --target connection-matrix-bench)"
benches=("now:$bench")
if [ -n "$before" ]; then
  [ -x "$before/bench/connection-matrix-bench" ] || fail "--before: $before/bench/connection-matrix-bench not found"
  benches=("before:$before/bench/connection-matrix-bench" "${benches[@]}")
fi
nodes=$(awk '$1 == "Nodes" { print $2; exit }' "$matrix")
[[ "$nodes" =~ ^[0-9]+$ ]] || fail "--matrix has no 'Nodes N' line"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
matrix=$(cd "$(dirname "$matrix")" && pwd)/$(basename "$matrix")

# median of the numbers on stdin
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# CPU seconds (user + system) of the run /usr/bin/time wrote to $1
cpu() { awk '{ printf "%.2f", $1 + $2 }' "$1"; }

for i in $(seq 1 "$rounds"); do
  load=$(cut -d' ' -f1 /proc/loadavg)
  (cd "$work" && GLIBC_TUNABLES=$htsim_tun /usr/bin/time -f "%U %S" -o ht.time "$htsim" -nodes "$nodes" -tm "$matrix" \
    -strat ecmp_host -paths 1 -linkspeed 400000 -mtu 4096 -hop_latency 0.25 -switch_latency 0 \
    -end "$end" -o "$work/ht.dat" >ht.out 2>&1) || fail "htsim_roce failed: see its output above"
  fct=$(awk '/ finished at / { print $6 }' "$work/ht.out" | sort -g |
    awk '{ a[NR] = $1 } END { printf "fastest %s, median %s us (%d flows)", a[1], a[int(NR / 2) + 1], NR }')
  t=$(cpu "$work/ht.time")
  ht=$t
  echo "$t" >>"$work/htsim"
  echo "htsim                 round $i: cpu $t s, load $load; FCT $fct"
  for entry in "${benches[@]}"; do
    label=${entry%%:*}
    exe=${entry#*:}
    for mode in "${modes[@]}"; do
      args=()
      tun=$ours_tun
      [ "$mode" = ack ] && args=(--ack-per-packet)
      [ "$mode" = default-4k ] && tun=""
      load=$(cut -d' ' -f1 /proc/loadavg)
      GLIBC_TUNABLES=$tun /usr/bin/time -f "%U %S" -o "$work/us.time" "$exe" --matrix="$matrix" \
        "${args[@]}" >"$work/us.out"
      t=$(cpu "$work/us.time")
      echo "$t" >>"$work/$label-$mode"
      awk -v x="$t" -v y="$ht" 'BEGIN { printf "%.4f\n", x / y }' >>"$work/$label-$mode.ratio"
      printf 'ai-fabric %-6s %-10s round %d: cpu %s s, load %s; %s\n' "$label" "$mode" "$i" "$t" \
        "$load" "$(grep '^FCT' "$work/us.out")"
    done
  done
done
h=$(median <"$work/htsim")
echo "medians of $rounds (CPU user + system): htsim $h s"
for entry in "${benches[@]}"; do
  label=${entry%%:*}
  d=$(median <"$work/$label-default")
  a=$(median <"$work/$label-ack")
  echo "  ai-fabric $label: $d s ($(awk -v x="$d" -v y="$h" 'BEGIN { printf "%.2f", x / y }')x), with an ACK per packet $a s ($(awk -v x="$a" -v y="$h" 'BEGIN { printf "%.2f", x / y }')x)"
  if [ "$pages" = 1 ]; then
    k=$(median <"$work/$label-default-4k")
    echo "  ai-fabric $label with 4 KiB pages: $k s ($(awk -v x="$k" -v y="$h" 'BEGIN { printf "%.2f", x / y }')x)"
  fi
done
# The same runs paired by round (each of our runs against the htsim run just before it), which
# cancels the slow drift of a shared machine's speed: the median of the rounds' ratios and their
# range.
echo "paired by round (our run / the same round's htsim run): median (lowest-highest)"
for entry in "${benches[@]}"; do
  label=${entry%%:*}
  for mode in "${modes[@]}"; do
    r="$work/$label-$mode.ratio"
    printf '  ai-fabric %-6s %-10s %.2fx (%.2f-%.2f)\n' "$label" "$mode" "$(median <"$r")" \
      "$(sort -g "$r" | head -n 1)" "$(sort -g "$r" | tail -n 1)"
  done
done
onoff() { if [ -n "$1" ]; then echo on; else echo off; fi; }
echo "huge pages (GLIBC_TUNABLES=$THP): ours $(onoff "$ours_tun"), htsim $(onoff "$htsim_tun")"
