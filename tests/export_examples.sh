#!/bin/sh
# Every worked example of spec mica.md through the results database: micad
# replay of the trace writes a session (--db), and 'micactl export
# --format mica' of that session must write exactly the expected bytes, so
# the tables keep everything MICA's files say.  Prints TAP.
. "$top_srcdir/tests/tracer_lib.sh"

MICACTL="$top_builddir/micactl"
dir="$top_srcdir/tests/mica"
db="$TMP/examples.db"

while read -r name trace file; do
	case "$name" in ''|'#'*) continue ;; esac
	out="$TMP/$name.$(echo "$file" | tr -c 'a-z0-9\n' _)"
	mkdir -p "$out"
	if ! "$MICAD" replay -q --db "$db" -c "$dir/$name.conf" "$dir/$trace.trace" \
			> "$out.log" 2>&1; then
		ok 1 "$name: micad replay --db"
		sed 's/^/# /' "$out.log"
		continue
	fi
	session=$("$MICACTL" query --db "$db" --format csv 'SELECT max(id) FROM session' | tail -n 1)
	if ! "$MICACTL" export "$session" --db "$db" -o "$out" > "$out.log" 2>&1; then
		ok 1 "$name: micactl export $session"
		sed 's/^/# /' "$out.log"
		continue
	fi
	cmp -s "$out/$file" "$dir/$name.$file"
	ok $? "$name: $file exported from session $session"
done < "$dir/examples.list"
is "$("$MICACTL" query --db "$db" --format csv \
	"SELECT count(*) FROM session WHERE end_reason != 'replayed'" | tail -n 1)" 0 \
	"every replay session ended 'replayed'"
done_testing
