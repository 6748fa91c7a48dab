#!/bin/sh
# micad's step rate against the raw PTRACE_SINGLESTEP loop, on the same
# program in the same run, pinned and unpinned.  Run: make bench-tracer
: "${top_builddir:=.}"
prog="$top_builddir/bench/spin"
conf=$(mktemp)
trap 'rm -f "$conf"' EXIT
printf 'analysis_type: all\ninterval_size: full\n' > "$conf"
for mode in pinned unpinned; do
	if [ $mode = pinned ]; then rawopt=--pin; micopt=; else rawopt=; micopt=--no-pin; fi
	raw=$("$top_builddir/bench/step_bench" $rawopt "$prog" | sed -n 's/.*: \([0-9.]*\) steps\/s/\1/p')
	mic=$("$top_builddir/micad" run $micopt -o /dev/null -- "$prog" 2>&1 |
		sed -n 's/.*instructions in [0-9.]* s (\([0-9.]*\) K\/s).*/\1/p')
	all=$("$top_builddir/micad" run $micopt -c "$conf" -o /dev/null -- "$prog" 2>&1 |
		sed -n 's/.*instructions in [0-9.]* s (\([0-9.]*\) K\/s).*/\1/p')
	awk -v m="$mode" -v r="$raw" -v k="$mic" -v a="$all" 'BEGIN {
		printf "%-9s raw %7.0f steps/s  micad %7.0f insn/s (%.2f)  with all MICA analyses %7.0f insn/s (%.2f)\n",
			m, r, k * 1000, k * 1000 / r, a * 1000, a * 1000 / r }'
done
