#!/bin/sh
# fuzz_run.sh NAME: the libFuzzer target tests/fuzz_NAME (TAP).  First every
# seed of tests/fuzz/NAME/ once (what was found stays fixed), then fuzzing
# from them for $FUZZ_SECONDS seconds (default 5; set it higher to search
# longer, FUZZ_SEED for another random sequence), with tests/fuzz/NAME.dict
# when there is one.  Skips, saying why, when configure found no clang.
name=$1
echo "1..2"
bin=${top_builddir:-.}/tests/fuzz_$name
seeds=${top_srcdir:-.}/tests/fuzz/$name
if [ -z "$FUZZ_CC" ]; then
	echo "ok 1 - fuzz_$name seeds # SKIP clang not available (configure found no FUZZ_CC)"
	echo "ok 2 - fuzz_$name # SKIP clang not available (configure found no FUZZ_CC)"
	exit 0
fi
if [ ! -x "$bin" ]; then
	echo "not ok 1 - fuzz_$name: $bin was not built"
	echo "not ok 2 - fuzz_$name: $bin was not built"
	exit 1
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/fuzz_$name.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/corpus"
if [ "$name" = http ]; then
	# The HTTP handlers answer from the HTTP tests' fixture database.
	"${top_builddir:-.}/tests/http_fixture" "$dir/fixture.db" > /dev/null || exit 1
	MICAD_FUZZ_DB=$dir/fixture.db
	export MICAD_FUZZ_DB
fi
dict=
[ -f "$seeds.dict" ] && dict="-dict=$seeds.dict"
# libmicrohttpd logs every malformed request: not on the log (the
# sanitizers' reports still are).
quiet=
[ "$name" = http ] && quiet=-close_fd_mask=2
n=$(ls "$seeds" | wc -l)
failed=0

report() {	# report LOG TEST-NAME: the log's tail and reproducers, as TAP comments
	sed 's/^/# /' "$1" | tail -n 40
	for f in "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* "$dir"/oom-*; do
		[ -f "$f" ] && printf '# reproducer %s (base64): %s\n' "$(basename "$f")" "$(base64 -w0 "$f" | cut -c1-400)"
	done
	echo "not ok $2"
	failed=1
}

if "$bin" -runs=0 -rss_limit_mb=2048 -timeout=10 $quiet -artifact_prefix="$dir/" "$seeds" \
	> "$dir/seeds.log" 2>&1; then
	echo "ok 1 - fuzz_$name: the $n seeds of tests/fuzz/$name run clean"
else
	report "$dir/seeds.log" "1 - fuzz_$name: a seed of tests/fuzz/$name fails"
fi
if "$bin" -max_total_time="${FUZZ_SECONDS:-5}" -seed="${FUZZ_SEED:-1}" -max_len=16384 \
	-rss_limit_mb=2048 -timeout=10 $dict $quiet -artifact_prefix="$dir/" "$dir/corpus" "$seeds" \
	> "$dir/log" 2>&1; then
	runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$dir/log")
	echo "ok 2 - fuzz_$name: no crash, leak, hang or invariant failure in ${runs:-?} runs (${FUZZ_SECONDS:-5} s)"
else
	report "$dir/log" "2 - fuzz_$name failed"
fi
exit $failed
