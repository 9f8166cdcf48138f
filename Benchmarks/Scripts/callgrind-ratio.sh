#!/usr/bin/env bash
# Instruction counts of Strata against raw SQLite C per workload, with callgrind (stable on a shared
# machine, unlike wall time), two ways:
# - whole process: three runs of one round each: raw only (R), Strata only (S), both (B); Strata's cost is
#   B - R and raw's is B - S, so templates cancel out, and what is untimed in the harness (the fetch before
#   an update, releasing the objects) counts;
# - timed part: only the instructions inside the harness's measured closure (`measure`), as wall time sees.
#   cd Benchmarks && swift build -c release && Scripts/callgrind-ratio.sh update [fetch insert ...]
set -euo pipefail
cd "$(dirname "$0")/.."
binary=.build/release/strata-benchmarks
total() {
    local out; out=$(mktemp)
    valgrind --tool=callgrind --callgrind-out-file="$out" "$binary" --rounds 1 --only "$1" --contenders "$2" >/dev/null 2>&1
    callgrind_annotate "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'
    rm -f "$out"
}
timed() {
    local out; out=$(mktemp)
    valgrind --tool=callgrind --toggle-collect='*7measure*' --callgrind-out-file="$out" "$binary" --rounds 1 --only "$1" --contenders "$2" >/dev/null 2>&1
    callgrind_annotate "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'
    rm -f "$out"
}
for workload in ${@:-fetch insert update}; do
    r=$(total "$workload" raw); s=$(total "$workload" strata); b=$(total "$workload" raw,strata)
    tr=$(timed "$workload" raw); ts=$(timed "$workload" strata)
    awk -v w="$workload" -v r="$r" -v s="$s" -v b="$b" -v tr="$tr" -v ts="$ts" 'BEGIN {
        raw = b - s; strata = b - r
        printf "%-10s whole process: raw %7.1fM  Strata %7.1fM  %.2fx", w, raw / 1e6, strata / 1e6, strata / raw
        # (Where the compiler inlined `measure`, the toggle sees nothing: no timed-part figure then.)
        if (tr > raw / 100) printf "   timed part: raw %7.1fM  Strata %7.1fM  %.2fx", tr / 1e6, ts / 1e6, ts / tr
        printf "\n" }'
done
