#!/usr/bin/env bash
# Instruction counts of Strata against raw SQLite C for one workload, with callgrind (stable on a shared
# machine, unlike wall time). Three runs of one round each: raw only (R), Strata only (S), both (B);
# Strata's cost is B - R and raw's is B - S, so setup, templates and verification cancel out.
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
for workload in "${@:-fetch insert update}"; do
    r=$(total "$workload" raw); s=$(total "$workload" strata); b=$(total "$workload" raw,strata)
    awk -v w="$workload" -v r="$r" -v s="$s" -v b="$b" 'BEGIN {
        raw = b - s; strata = b - r
        printf "%-10s raw %6.1fM instr  Strata %6.1fM instr  %.2fx\n", w, raw / 1e6, strata / 1e6, strata / raw }'
done
