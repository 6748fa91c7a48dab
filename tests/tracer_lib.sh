# Helpers for the tracer's shell tests (TAP).  Sourced.
: "${top_builddir:=.}" "${top_srcdir:=.}"
MICAD="$top_builddir/micad"
ASM="$top_builddir/tests/asm"
T=0
FAILED=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/micad-tracer.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
. "$top_srcdir/tests/wait.sh"

ok() {		# ok COND_STATUS NAME
	T=$((T + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $T - $2"
	else
		echo "not ok $T - $2"
		FAILED=1
	fi
}

skip() {	# skip NAME REASON
	T=$((T + 1))
	echo "ok $T - $1 # SKIP $2"
}

is() {		# is GOT WANT NAME
	if [ "$1" = "$2" ]; then
		ok 0 "$3"
	else
		ok 1 "$3"
		echo "#   got:  '$1'"
		echo "#   want: '$2'"
	fi
}

todo_is() {	# todo_is GOT WANT NAME REASON: a known bug (TAP TODO; XPASS once fixed)
	T=$((T + 1))
	if [ "$1" = "$2" ]; then
		echo "ok $T - $3 # TODO $4"
	else
		echo "not ok $T - $3 # TODO $4"
		echo "#   got:  '$1'"
		echo "#   want: '$2'"
	fi
}

done_testing() {
	echo "1..$T"
	exit $FAILED
}

# counts FILE TID: "E H" of that thread from a micad -o file ("" if absent)
counts() {
	sed -n "s/^pid [0-9]* tid $2: \([0-9]*\) instructions (E), \([0-9]*\) (H);.*/\1 \2/p" "$1"
}

# counts of the N-th thread line (1-based)
counts_nth() {
	sed -n "$2s/^pid [0-9]* tid [0-9]*: \([0-9]*\) instructions (E), \([0-9]*\) (H);.*/\1 \2/p" "$1"
}
