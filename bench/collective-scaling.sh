#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Per-packet-hop CPU cost of collective-bench at two cluster sizes, measured the way a noisy
# machine allows: the two sizes run alternately, each REPEAT times in a fresh process, and the
# figures are the minimum (least disturbed run) and the median over the repeats.
#
# With --instructions it counts instructions instead of timing (valgrind's callgrind, inside
# Simulator::Run only): deterministic, the same on every run and under any load, so it shows
# whether the work per packet-hop grows with the cluster, apart from what the caches make of it.
# It takes about 25x the run time (some 12 minutes for the 1,024-GPU run at 64 MiB).
#
# With --cache it also simulates the caches (callgrind --cache-sim=yes; about 100x the run
# time) as this VM's 1 MiB L2 in front of a 4 MiB last level, and prints misses per
# packet-hop: how much of the per-hop state stops fitting as the job grows, counted the same
# way on every machine and under any load.
#
# Usage: bench/collective-scaling.sh [--repeat N] [--mib M] [--small S] [--large L]
#                                    [--instructions] [--cache] [ARGS...]
#   --repeat N   runs per size (default 5; not used with --instructions, which is exact)
#   --cache      with --instructions: L2 and last-level misses per packet-hop too
#   --mib M      AllReduce size per GPU in MiB (default 64)
#   --small S    servers of 8 GPUs in the small run (default 16: 128 GPUs)
#   --large L    servers of 8 GPUs in the large run (default 128: 1,024 GPUs)
#   ARGS         passed to every collective-bench run (e.g. --algorithm=hierarchical)
# Needs a built tree (./ai-fabric build); BUILD=dir overrides the build directory.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="${BUILD:-$ROOT/build}/bench/collective-bench"
repeat=5
mib=64
small=16
large=128
extra=()
instructions=0
cache=0
while [ $# -gt 0 ]; do
  case "$1" in
    --instructions) instructions=1; shift ;;
    --cache) instructions=1; cache=1; shift ;;
    --repeat) repeat="$2"; shift 2 ;;
    --mib) mib="$2"; shift 2 ;;
    --small) small="$2"; shift 2 ;;
    --large) large="$2"; shift 2 ;;
    *) extra+=("$1"); shift ;;
  esac
done
for v in repeat:"$repeat" mib:"$mib" small:"$small" large:"$large"; do
  if ! [[ "${v#*:}" =~ ^[1-9][0-9]*$ ]]; then
    echo "collective-scaling: --${v%%:*} must be a positive integer (got '${v#*:}')" >&2
    exit 2
  fi
done
if [ ! -x "$BIN" ]; then
  echo "collective-scaling: $BIN not found; run ./ai-fabric build first" >&2
  exit 2
fi

if [ "$instructions" = 1 ]; then
  if ! command -v valgrind >/dev/null; then
    echo "collective-scaling: --instructions needs valgrind (apt-get install -y valgrind)" >&2
    exit 2
  fi
  declare -A ipl
  sim=()
  if [ "$cache" = 1 ]; then
    sim=(--cache-sim=yes --D1=1048576,16,64 --LL=4194304,16,64)
  fi
  for s in "$small" "$large"; do
    log="$(mktemp)"
    out="$(valgrind --tool=callgrind "${sim[@]}" \
      --toggle-collect='ns3::DefaultSimulatorImpl::Run()' \
      --callgrind-out-file=/dev/null "$BIN" --servers="$s" --mib="$mib" "${extra[@]}" 2>"$log")"
    # Collected: Ir [Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw] inside Simulator::Run
    read -r -a col <<<"$(grep -o 'Collected : [0-9 ]*' "$log" | cut -d: -f2)"
    rm -f "$log"
    ins="${col[0]}"
    hops="$(grep -o '[0-9]* packet-hops' <<<"$out" | cut -d' ' -f1)"
    ipl[$s]="$(awk -v i="$ins" -v h="$hops" 'BEGIN{printf "%.0f", i/h}')"
    echo "$((s * 8)) GPUs: $ins instructions in the run, $hops packet-hops: ${ipl[$s]} per packet-hop"
    if [ "$cache" = 1 ]; then
      awk -v h="$hops" -v r="${col[4]}" -v w="${col[5]}" -v lr="${col[7]}" -v lw="${col[8]}" \
        'BEGIN{printf "  per packet-hop: %.2f L2 read + %.2f write misses (1 MiB), %.3f last-level misses (4 MiB)\n", r/h, w/h, (lr+lw)/h}'
    fi
  done
  awk -v a="${ipl[$small]}" -v b="${ipl[$large]}" -v n="$((small * 8))" -v m="$((large * 8))" \
    'BEGIN{printf "instructions per packet-hop, %d -> %d GPUs: x%.3f\n", n, m, b/a}'
  exit 0
fi

declare -A runs
for ((i = 1; i <= repeat; ++i)); do
  for s in "$small" "$large"; do
    out="$("$BIN" --servers="$s" --mib="$mib" "${extra[@]}")"
    ns="$(grep -o '[0-9.]* ns/packet-hop' <<<"$out" | cut -d' ' -f1)"
    echo "run $i: $((s * 8)) GPUs: $ns ns/packet-hop"
    runs[$s]+="$ns "
  done
done

stat() { # $1 = min|median, rest = values
  local what="$1"; shift
  printf '%s\n' "$@" | sort -g | awk -v w="$what" '{v[NR]=$1} END{
    if (w == "min") print v[1]; else if (NR % 2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'
}
read -r -a a <<<"${runs[$small]}"
read -r -a b <<<"${runs[$large]}"
amin="$(stat min "${a[@]}")"; amed="$(stat median "${a[@]}")"
bmin="$(stat min "${b[@]}")"; bmed="$(stat median "${b[@]}")"
echo "$((small * 8)) GPUs: min $amin, median $amed ns/packet-hop"
echo "$((large * 8)) GPUs: min $bmin, median $bmed ns/packet-hop"
awk -v a="$amin" -v b="$bmin" -v c="$amed" -v d="$bmed" -v n="$((small * 8))" -v m="$((large * 8))" \
  'BEGIN{printf "ratio %d -> %d GPUs: %.2f (minima), %.2f (medians)\n", n, m, b/a, d/c}'
