#!/bin/sh
# micad's step rate against the raw PTRACE_SINGLESTEP loop, on the same
# program in the same run, pinned and unpinned: micad with trap-flag
# stepping (--step=tf), with int3 leapfrog stepping (--step=leapfrog), and
# with all MICA analyses on (default step mode).  Ratios are to the raw
# rate; "leapfrog/tf" compares micad's two step modes.  Run: make bench-tracer
: "${top_builddir:=.}"
prog="$top_builddir/bench/spin"
conf=$(mktemp)
trap 'rm -f "$conf"' EXIT
printf 'analysis_type: all\ninterval_size: full\n' > "$conf"
rate() {	# rate MICAD-OPTIONS...: micad's K instructions/s
	"$top_builddir/micad" run "$@" -o /dev/null -- "$prog" 2>&1 |
		sed -n 's/.*instructions in [0-9.]* s (\([0-9.]*\) K\/s).*/\1/p'
}
for mode in pinned unpinned; do
	if [ $mode = pinned ]; then rawopt=--pin; micopt=; else rawopt=; micopt=--no-pin; fi
	raw=$("$top_builddir/bench/step_bench" $rawopt "$prog" | sed -n 's/.*: \([0-9.]*\) steps\/s/\1/p')
	tf=$(rate $micopt --step=tf)
	leap=$(rate $micopt --step=leapfrog)
	all=$(rate $micopt -c "$conf")
	awk -v m="$mode" -v r="$raw" -v t="$tf" -v l="$leap" -v a="$all" 'BEGIN {
		printf "%-9s raw TF %7.0f steps/s  micad tf %7.0f insn/s (%.2f)  micad leapfrog %7.0f insn/s (%.2f)  leapfrog/tf %.2f  default with all MICA analyses %7.0f insn/s (%.2f)\n",
			m, r, t * 1000, t * 1000 / r, l * 1000, l * 1000 / r, l / t, a * 1000, a * 1000 / r }'
done
