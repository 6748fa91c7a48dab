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
done_testing
