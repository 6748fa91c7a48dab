#!/bin/sh
# micactl mca --model=llvm as a drop-in llvm-mca-14 (issue 21): every RUN
# line of the LLVM llvm-mca X86 tests kept in tests/llvm-mca (copies of
# LLVM's inputs, Apache-2.0 WITH LLVM-exception: tests/llvm-mca/README)
# is run through llvm-mca-14 and through micactl in this test, and the two
# must agree byte for byte on standard output, on the exit status and on
# the gist of standard error (its error: and warning: messages).  Prints
# TAP, then the identical fraction; fails on any difference but the
# explained exceptions of tests/mca_llvm_corpus.exceptions (TODO there;
# an exception that starts to agree fails too, so that the list stays
# true).  With CORPUS_DEFAULT_MODEL=1 (the second half of this test) the
# default model's report of each RUN line must have llvm-mca-14's
# sections and columns: the same lines once numbers are blanked out.
micactl=${MICACTL:-$top_builddir/micactl}
corpus=$top_srcdir/tests/llvm-mca
exceptions=$top_srcdir/tests/mca_llvm_corpus.exceptions
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
n=0 same=0 total=0 layout_same=0

if ! command -v llvm-mca-14 > /dev/null; then
	echo "ok 1 - LLVM's llvm-mca X86 tests # SKIP llvm-mca-14 is not installed" \
	     "(contrib/install-deps installs Debian's llvm-14)"
	echo "1..1"
	exit 0
fi

# error: and warning: messages, without the program's name and path.
gist() {
	sed -n 's/^.*\(error\|warning\): /\1: /p' "$1"
}

# A report's sections and columns: every run of digits, '-' alone and
# the timeline's and resource columns' cells made one mark.
layout() {
	sed -e 's/[0-9][0-9.]*/N/g' -e 's/ - / N /g' -e 's/ -$/ N/' -e 's/^ *- / N /' \
	    -e 's/\[N\(,N\)*\] *[.DeE=R -]*/[T]/' -e 's/  */ /g' -e 's/^ //' "$1" |
		grep -v '^\[T\]\|^ *N[N ]*$\|^Index\|^ *\(N \)*$'
}

for f in $(cd "$corpus" && find . -name '*.s' | sort); do
	f=${f#./}
	i=0
	grep '^# RUN: *\(not \)\?llvm-mca ' "$corpus/$f" | sed 's/^# RUN: *//' > "$tmp/runs"
	while IFS= read -r run; do
		i=$((i + 1))
		# The command up to FileCheck: llvm-mca's options, the input
		# through < %s or as %s.
		cmd=$(printf '%s\n' "$run" | sed -e 's/ *|&\? *FileCheck.*//' -e 's/^not //' \
			-e 's/^llvm-mca //' -e 's/ *2>&1//')
		args=$(printf '%s\n' "$cmd" | sed -e 's/< *%s//' -e 's/%s//')
		case $cmd in
		*"<"*) stdin=1 ;;
		*) stdin=0 ;;
		esac
		total=$((total + 1))
		# -o %t: each tool writes a file of its own, compared as its
		# output
		rargs=$(printf '%s\n' "$args" | sed "s|%t|$tmp/ref.t|g")
		oargs=$(printf '%s\n' "$args" | sed "s|%t|$tmp/our.t|g")
		rm -f "$tmp"/ref.t* "$tmp"/our.t*
		(
			cd "$corpus" || exit 99
			# shellcheck disable=SC2086
			if [ $stdin = 1 ]; then
				llvm-mca-14 $rargs < "$f" > "$tmp/ref.out" 2> "$tmp/ref.err"
				echo $? > "$tmp/ref.rc"
				"$micactl" mca --model=llvm $oargs < "$f" > "$tmp/our.out" 2> "$tmp/our.err"
				echo $? > "$tmp/our.rc"
				if [ -n "$CORPUS_DEFAULT_MODEL" ]; then
					"$micactl" mca $oargs < "$f" > "$tmp/def.out" 2> /dev/null
				fi
			else
				llvm-mca-14 $rargs "$f" > "$tmp/ref.out" 2> "$tmp/ref.err"
				echo $? > "$tmp/ref.rc"
				"$micactl" mca --model=llvm $oargs "$f" > "$tmp/our.out" 2> "$tmp/our.err"
				echo $? > "$tmp/our.rc"
				if [ -n "$CORPUS_DEFAULT_MODEL" ]; then
					"$micactl" mca $oargs "$f" > "$tmp/def.out" 2> /dev/null
				fi
			fi
		)
		for t in "$tmp"/ref.t*; do [ -f "$t" ] && cat "$t" >> "$tmp/ref.out"; done
		for t in "$tmp"/our.t*; do [ -f "$t" ] && cat "$t" >> "$tmp/our.out"; done
		why=""
		if ! cmp -s "$tmp/ref.out" "$tmp/our.out"; then
			why="standard output differs"
		elif ! cmp -s "$tmp/ref.rc" "$tmp/our.rc"; then
			why="exit status $(cat "$tmp/our.rc"), llvm-mca-14's $(cat "$tmp/ref.rc")"
		elif [ "$(gist "$tmp/ref.err")" != "$(gist "$tmp/our.err")" ]; then
			why="the messages differ"
		fi
		exc=$(awk -v f="$f" -v i="$i" '$1 == f && $2 == i && $3 != "layout:" {
			$1 = $2 = ""; sub(/^  /, ""); print }' "$exceptions" 2> /dev/null)
		lexc=$(awk -v f="$f" -v i="$i" '$1 == f && $2 == i && $3 == "layout:" {
			$1 = $2 = $3 = ""; sub(/^   /, ""); print }' "$exceptions" 2> /dev/null)
		n=$((n + 1))
		if [ -z "$why" ]; then
			same=$((same + 1))
			if [ -n "$exc" ]; then
				echo "not ok $n - $f run $i: identical, but listed as an exception ($exc)"
			else
				echo "ok $n - $f run $i: identical"
			fi
		else
			if [ -n "$VERBOSE_DIFF" ]; then
				diff "$tmp/ref.out" "$tmp/our.out" | head -20 | sed 's/^/# /'
				sed 's/^/# ref: /' "$tmp/ref.err" | head -5
				sed 's/^/# our: /' "$tmp/our.err" | head -5
			fi
			if [ -n "$exc" ]; then
				echo "not ok $n - $f run $i: $why # TODO $exc"
			else
				echo "not ok $n - $f run $i ($args): $why"
			fi
		fi
		if [ -n "$CORPUS_DEFAULT_MODEL" ] && [ "$(cat "$tmp/ref.rc")" = 0 ]; then
			n=$((n + 1))
			layout "$tmp/ref.out" > "$tmp/ref.lay"
			layout "$tmp/def.out" | grep -v '^Throughput: ' > "$tmp/def.lay"
			if cmp -s "$tmp/ref.lay" "$tmp/def.lay"; then
				layout_same=$((layout_same + 1))
				if [ -n "$lexc" ]; then
					echo "not ok $n - $f run $i: the default model's layout agrees, but is listed ($lexc)"
				else
					echo "ok $n - $f run $i: the default model's report has llvm-mca-14's sections and columns"
				fi
			elif [ -n "$lexc" ]; then
				echo "not ok $n - $f run $i: the default model's layout differs # TODO $lexc"
			else
				diff "$tmp/ref.lay" "$tmp/def.lay" | head -6 | sed 's/^/# /'
				echo "not ok $n - $f run $i: the default model's report differs in its layout"
			fi
		fi
	done < "$tmp/runs"
done
[ -n "$CORPUS_DEFAULT_MODEL" ] && echo "# the default model's layout is llvm-mca-14's on $layout_same RUN lines"
echo "# identical to llvm-mca-14: $same of $total RUN lines" \
     "($(awk -v a="$same" -v b="$total" 'BEGIN { printf "%.1f", b ? 100 * a / b : 0 }')%)"
echo "1..$n"
