#!/usr/bin/env bash
# Builds the DocC documentation of the Strata library with the toolchain's docc (no plugin needed) and
# fails on any warning: broken links, ambiguous references, malformed examples.
#   Scripts/build-docs.sh [output-folder]   (default .build/docs)
set -euo pipefail
cd "$(dirname "$0")/.."
output="${1:-.build/docs}"
graphs=.build/symbol-graphs
rm -rf "$graphs" && mkdir -p "$graphs"
swift build --target Strata -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs" \
    -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public > "$graphs.log" 2>&1 || { cat "$graphs.log"; exit 1; }
docc convert Sources/Strata/Strata.docc --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name Strata --fallback-bundle-identifier org.strata.Strata \
    --output-path "$output" > "$graphs.docc.log" 2>&1 || { cat "$graphs.docc.log"; exit 1; }
warnings=$(grep -c "warning:" "$graphs.docc.log" || true)
if [ "$warnings" != "0" ]; then
    grep -A3 "warning:" "$graphs.docc.log" >&2
    echo "documentation: $warnings warning(s)" >&2
    exit 1
fi
echo "documentation: built in $output with 0 warnings"
