#!/bin/sh
# tests/mutants.list stays true to the code: every record's file exists
# and holds its original line exactly once, so that 'make check-mutants'
# (too long for every run) never finds a list gone stale by code changes
# (three records had, unnoticed, before this test).  The list's own check
# is planted with a record that no longer matches, and must refuse it.
. "$top_srcdir/tests/tracer_lib.sh"

has() {	# has HAYSTACK NEEDLE NAME
	case $1 in *"$2"*) ok 0 "$3" ;; *) ok 1 "$3"; echo "#   wanted: $2"; echo "#   in: $1" ;; esac
}

command -v python3 >/dev/null 2>&1 || { skip "mutants.list" "python3 is not installed"; done_testing; }

python3 "$top_srcdir/tests/mutants.py" --srcdir "$top_srcdir" --check-list >"$TMP/out" 2>&1
rc=$?
is "$rc" 0 "every record of tests/mutants.list matches the code: $(tail -n 5 "$TMP/out" | tr '\n' ' ')"
n=$(grep -c '^file: ' "$top_srcdir/tests/mutants.list")
has "$(cat "$TMP/out")" "all $n records" "... all $n of them"

# A record whose line is not in its file, and one naming no file.
sed -e '0,/^from: /s/^from: .*/from: this line is in no file/' \
	"$top_srcdir/tests/mutants.list" >"$TMP/stale.list"
python3 "$top_srcdir/tests/mutants.py" --srcdir "$top_srcdir" --list "$TMP/stale.list" \
	--check-list >"$TMP/stale.out" 2>&1
rc=$?
is "$rc" 1 "a record whose line is gone is refused"
has "$(cat "$TMP/stale.out")" "holds the line 0 times: this line is in no file" "... saying which"
sed -e '0,/^file: /s/^file: .*/file: analyzers\/no_such_file.c/' \
	"$top_srcdir/tests/mutants.list" >"$TMP/nofile.list"
python3 "$top_srcdir/tests/mutants.py" --srcdir "$top_srcdir" --list "$TMP/nofile.list" \
	--check-list >"$TMP/nofile.out" 2>&1
rc=$?
is "$rc" 1 "a record naming no file is refused"
has "$(cat "$TMP/nofile.out")" "no file analyzers/no_such_file.c" "... saying which"
done_testing
