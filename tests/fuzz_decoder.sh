#!/bin/sh
# Run the libFuzzer decoder target for a bounded time (TAP).  Skips, saying
# why, when configure found no clang (FUZZ_CC empty).
echo "1..1"
bin=${top_builddir:-.}/tests/fuzz_decoder
if [ -z "$FUZZ_CC" ]; then
	echo "ok 1 - fuzz_decoder # SKIP clang not available (configure found no FUZZ_CC)"
	exit 0
fi
if [ ! -x "$bin" ]; then
	echo "not ok 1 - fuzz_decoder: $bin was not built"
	exit 1
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/fuzz_decoder.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
log=$dir/log
if "$bin" -max_total_time="${FUZZ_SECONDS:-20}" -seed=1 -max_len=4096 \
	-artifact_prefix="$dir/" "$dir" >"$log" 2>&1; then
	runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log")
	echo "ok 1 - fuzz_decoder: no crash or invariant failure in ${runs:-?} runs"
else
	sed 's/^/# /' "$log" | tail -n 40
	for f in "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-*; do
		[ -f "$f" ] && echo "# reproducer: $(od -An -tx1 "$f" | tr -d '\n' | cut -c1-200)"
	done
	echo "not ok 1 - fuzz_decoder failed"
	exit 1
fi
