#!/bin/sh
# A program's own SIGTRAPs under micad (issue 20): sent by raise(), kill()
# and tgkill(), executed int3s, and a SIGTRAP held pending while blocked;
# with both step modes, each run must print and exit exactly as the
# program alone does (tests/cprog/own_sigtrap.c), and micad says once that
# the handler's instructions are not traced.
. "$top_srcdir/tests/tracer_lib.sh"
PROG="$top_builddir/tests/cprog/own_sigtrap"

for mode in send int3 block; do
	"$PROG" "$mode" >"$TMP/native.out"
	native=$?
	for step in tf leapfrog; do
		"$MICAD" run --no-db --step=$step -- "$PROG" "$mode" >"$TMP/$step.out" \
			2>"$TMP/$step.err"
		is "$?" "$native" "$mode, --step=$step: the exit status of the program alone ($native)"
		is "$(cat "$TMP/$step.out")" "$(cat "$TMP/native.out")" \
			"$mode, --step=$step: the output of the program alone"
		is "$(grep -c "handles SIGTRAP: its instructions while it blocks SIGTRAP" \
			"$TMP/$step.err")" 1 "$mode, --step=$step: the untraced handler said once"
	done
done
done_testing
