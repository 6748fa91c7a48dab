#!/bin/sh
# --record writes the event stream; reading it back through the same
# consumers gives exactly the live run's events and counts.
. "$top_srcdir/tests/tracer_lib.sh"

for prog in rep threads signals memops; do
	"$MICAD" run -q --record "$TMP/$prog.trace" -o "$TMP/$prog.live" \
		--dump-events "$TMP/$prog.live.dump" -- "$ASM/$prog" > /dev/null
	"$top_builddir/tests/trace_read" "$TMP/$prog.trace" "$TMP/$prog.replay" "$TMP/$prog.replay.dump"
	ok $? "$prog: the trace reads back"
	cmp -s "$TMP/$prog.live" "$TMP/$prog.replay"
	ok $? "$prog: replayed counts equal the live run's"
	cmp -s "$TMP/$prog.live.dump" "$TMP/$prog.replay.dump"
	ok $? "$prog: replayed events equal the live run's, field by field"
done
# MICA's files: live run vs 'micad replay' of the recorded trace.
printf 'analysis_type: all\ninterval_size: 200\n' > "$TMP/mica.conf"
mkdir -p "$TMP/live" "$TMP/replay"
"$MICAD" run -q -c "$TMP/mica.conf" --mica-out "$TMP/live" --record "$TMP/m.trace" -o /dev/null \
	-- "$ASM/threads" > /dev/null
ok $? "MICA analyses (all, interval 200) on a live run"
"$MICAD" replay -q -c "$TMP/mica.conf" --mica-out "$TMP/replay" "$TMP/m.trace" > /dev/null
ok $? "micad replay of the recorded trace"
diff -r "$TMP/live" "$TMP/replay" > /dev/null && [ -n "$(ls "$TMP/live")" ]
ok $? "replayed MICA files equal the live run's, byte for byte"
head -c 8 "$TMP/rep.trace" | grep -q MICADTRC
ok $? "the trace starts with its magic"
# A recording cut short (micad killed, the disk full) is not replayed as a
# whole one: the trailer (version 3) is missing, and replay says where.
size=$(wc -c < "$TMP/m.trace")
for cut in $((size / 2)) $((size - 5)); do
	head -c "$cut" "$TMP/m.trace" > "$TMP/cut.trace"
	"$MICAD" replay -q --no-db -c "$TMP/mica.conf" "$TMP/cut.trace" > /dev/null 2> "$TMP/cut.err"
	rc=$?
	[ $rc -ne 0 ] && grep -q "cut.trace: truncated at record [0-9]* (.* cut short)" "$TMP/cut.err"
	ok $? "a trace cut at byte $cut of $size: exit $rc, $(cat "$TMP/cut.err")"
done
printf '# nothing but a comment\n\n' > "$TMP/empty.txt"
"$MICAD" replay -q --no-db -c "$TMP/mica.conf" "$TMP/empty.txt" > /dev/null 2> "$TMP/empty.err"
rc=$?
[ $rc -ne 0 ] && grep -q "empty.txt: an empty trace: no instruction line in its 2 lines" "$TMP/empty.err"
ok $? "an empty text trace is an error: exit $rc, $(cat "$TMP/empty.err")"
done_testing
