#!/usr/bin/env bash
# Fuzzes the predicate parser with libFuzzer for SECONDS (default 60): compiles
# Fuzz/PredicateParser/main.swift together with Sources/ObjectGraph/Predicates into one
# instrumented binary (-sanitize=fuzzer,address), seeds a corpus with the formats of
# ../shared/corpus/predicates/vectors.tsv, and runs it. Crashes land in .build-fuzz/artifacts/.
# Exits non-zero when libFuzzer finds a crash, a hang (timeout) or a leak (except the Foundation
# leaks listed, with a reproduction, in Fuzz/PredicateParser/lsan.supp).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
out=.build-fuzz
mkdir -p "$out/corpus" "$out/artifacts"

swiftc -sanitize=fuzzer,address -parse-as-library -O -g \
    -module-name PredicateFuzz -swift-version 6 \
    Fuzz/PredicateParser/main.swift Sources/ObjectGraph/Predicates/*.swift \
    -o "$out/fuzz-predicates"

vectors=../shared/corpus/predicates/vectors.tsv
if [ -f "$vectors" ]; then
    tail -n +2 "$vectors" | cut -f2 | awk -v dir="$out/corpus" '{ printf "%s", $0 > (dir "/seed-" NR) }'
fi

# Leaks inside Foundation itself (documented in the suppression file) are not ours to fix.
LSAN_OPTIONS="suppressions=$(pwd)/Fuzz/PredicateParser/lsan.supp:print_suppressions=1" \
"$out/fuzz-predicates" "$out/corpus" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=512 \
    -detect_leaks=1 -print_final_stats=1 -artifact_prefix="$out/artifacts/"
