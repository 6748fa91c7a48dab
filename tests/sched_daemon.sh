#!/bin/sh
# The live scheduling model in the daemon (daemon/session/trace_sched.c,
# daemon/store/store_sched.c): 'micad run --db' on hand-counted programs.
#  - the stored cycles, retired instructions and port uops of every
#    interval equal those of sched_live fed the same recorded events
#    directly (tests/sched_daemon_feed.c, written apart from the daemon's
#    consumer), in interval and full mode, one and two threads;
#  - the rows line up 1:1 with table interval (same tid and idx, final);
#  - the view simulated_cycles: IPC and CPI from the row's own values;
#  - the hottest block of loop.S is its loop body (address, length, 99
#    executions after the first iteration that starts at _start), and its
#    report's total_cycles equals 'micactl mca --throughput=loop' on the
#    same three instructions;
#  - MGSim's counters 0 and 20 are the sum of the simulated cycles;
#  - a dynamically linked program runs to its end (ld.so's microcoded
#    instructions);
#  - --mcpu: an AMD model falls back to skylake with a warning, an
#    unknown one is refused.
. "$top_srcdir/tests/tracer_lib.sh"

FEED="$top_builddir/tests/sched_daemon_feed"
MICACTL="$top_builddir/micactl"

if ! command -v sqlite3 >/dev/null 2>&1; then
	skip "sched_daemon" "no sqlite3 command-line tool"
	done_testing
fi

q() {		# q DB SQL
	sqlite3 -separator ' ' "$1" "$2"
}

# One run: trace PROG into DB with CONF (a mica.conf text), recording the
# events; compare the stored intervals with the direct feed of them.
check_run() {	# check_run NAME PROG CONF S
	name=$1
	db="$TMP/$name.db"
	printf "$3" > "$TMP/$name.conf"
	"$MICAD" run -q --mcpu skylake -c "$TMP/$name.conf" --db "$db" \
		--record "$TMP/$name.trace" -o "$TMP/$name.counts" -- "$2" 2> "$TMP/$name.err"
	ok $? "$name: micad run exits 0"
	"$FEED" "$TMP/$name.trace" skylake "$4" | sort > "$TMP/$name.want"
	# TID IDX FINAL CYCLES INSNS then the port uops in port order
	q "$db" "SELECT s.tid, s.idx, s.final, s.cycles, s.instructions,
			(SELECT group_concat(uops, ' ') FROM
				(SELECT uops FROM sched_port p WHERE p.session_id = s.session_id
				 AND p.tid = s.tid AND p.idx = s.idx ORDER BY port))
		 FROM sched_interval s ORDER BY s.tid, s.idx" | sort > "$TMP/$name.got"
	if [ -s "$TMP/$name.want" ] && cmp -s "$TMP/$name.want" "$TMP/$name.got"; then
		ok 0 "$name: stored cycles, instructions, port uops = sched_live fed directly"
	else
		ok 1 "$name: stored cycles, instructions, port uops = sched_live fed directly"
		diff "$TMP/$name.want" "$TMP/$name.got" | sed 's/^/# /'
	fi
	is "$(q "$db" "SELECT tid, idx, final FROM interval ORDER BY tid, idx")" \
	   "$(q "$db" "SELECT tid, idx, final FROM sched_interval ORDER BY tid, idx")" \
	   "$name: one sched_interval row per interval row (tid, idx, final)"
	is "$(q "$db" "SELECT tid, sum(instructions) FROM sched_interval GROUP BY tid ORDER BY tid")" \
	   "$(q "$db" "SELECT tid, sum(ins) FROM interval GROUP BY tid ORDER BY tid")" \
	   "$name: every traced instruction retires in the model (per thread)"
	is "$(q "$db" "SELECT max(core_clocks), max(clocks) FROM mgsim_counters")" \
	   "$(q "$db" "SELECT sum(cycles), sum(cycles) FROM sched_interval")" \
	   "$name: MGSim counters 20 and 0 (R = 1) = the sum of the simulated cycles"
	is "$(q "$db" "SELECT cpu FROM sched_config") $(q "$db" "SELECT cycle_model FROM mgsim_config")" \
	   "skylake skylake" "$name: the CPU model is stored, and named as MGSim's cycle model"
}

check_run loop "$ASM/loop" 'analysis_type: all\ninterval_size: 200\n' 200
db="$TMP/loop.db"
# loop.S: 304 instructions, intervals of 200: idx 0 and the final idx 1.
is "$(q "$db" "SELECT count(*), sum(instructions) FROM sched_interval")" "2 304" \
   "loop: two intervals, 304 instructions"
# The MGSim snapshot of interval 0 is taken at its boundary: the cycles of
# that interval alone.
is "$(q "$db" "SELECT core_clocks FROM mgsim_counters WHERE idx = 0")" \
   "$(q "$db" "SELECT cycles FROM sched_interval WHERE idx = 0")" \
   "loop: MGSim counter 20 at interval 0 = the cycles of interval 0"
# The view, hand-checked from each row's own cycles and instructions.
q "$db" "SELECT interval, instructions, cycles, printf('%.6f %.6f', ipc, cpi)
	 FROM simulated_cycles ORDER BY interval" > "$TMP/view"
awk '{ want = sprintf("%.6f %.6f", $2 / $3, $3 / $2)
       if ($4 " " $5 != want) { print "# interval " $1 ": " $4 " " $5 " want " want; bad = 1 } }
     END { exit bad }' "$TMP/view"
ok $? "loop: simulated_cycles IPC = instructions / cycles, CPI = cycles / instructions"
is "$(q "$db" "SELECT group_concat(mica_instructions, ' ') FROM simulated_cycles")" "200 104" \
   "loop: the view shows MICA's instructions of each interval next to them"
# Pressure = uops / cycles, per port.
is "$(q "$db" "SELECT count(*) FROM sched_port p JOIN sched_interval s USING (session_id, tid, idx)
	WHERE abs(p.pressure - CAST(p.uops AS REAL) / s.cycles) > 1e-9")" 0 \
   "loop: port pressure = uops / cycles"
# The hot block: objdump's addresses of the loop body (add ... jne).
body=$(objdump -d "$ASM/loop" | awk '/\tadd /{ sub(":", "", $1); a = $1 } /\tjne /{ sub(":", "", $1); j = $1 } END { print a, j }')
is "$(q "$db" "SELECT printf('%x %x', address, end_address), instructions, executions
	FROM sched_hot_block WHERE rank = 1")" "$body 3 99" \
   "loop: the hottest block is the loop body, 3 instructions, 99 executions"
printf 'add $3, %%rax\ndec %%ecx\njnz .-5\n' > "$TMP/body.s"
want=$("$MICACTL" mca -mcpu=skylake --throughput=loop -iterations=100 --json=compact "$TMP/body.s" |
	sed -n 's/.*"total_cycles": \([0-9]*\).*/\1/p')
got=$(q "$db" "SELECT report FROM sched_hot_block WHERE rank = 1" |
	sed -n 's/.*"total_cycles": \([0-9]*\).*/\1/p')
if [ -n "$want" ] && [ "$want" = "$got" ]; then
	ok 0 "loop: hot block report total_cycles ($got) = micactl mca --throughput=loop"
else
	ok 1 "loop: hot block report total_cycles ($got) = micactl mca --throughput=loop ($want)"
fi
is "$(q "$db" "SELECT json_valid(report) FROM sched_hot_block ORDER BY rank")" \
   "$(q "$db" "SELECT 1 FROM sched_hot_block ORDER BY rank")" "loop: every report is valid JSON"

check_run full "$ASM/loop" 'analysis_type: itypes\ninterval_size: full\n' 0
is "$(q "$TMP/full.db" "SELECT idx, final, instructions FROM sched_interval")" "0 1 304" \
   "full: one interval of 304 instructions"

check_run threads "$ASM/threads" 'analysis_type: all\ninterval_size: 200\n' 200
# 113 (main: one final interval) and 406 (two of 200 and a final 6).
is "$(q "$TMP/threads.db" "SELECT count(*), sum(instructions) FROM sched_interval")" "4 519" \
   "threads: 1 + 3 intervals, 519 instructions"

# A dynamically linked program: ld.so runs microcoded instructions with
# more uops than the IDQ holds (they once stalled the model for ever).
"$MICAD" run -q --mcpu skylake --db "$TMP/sh.db" -o /dev/null -- /bin/sh -c true 2> "$TMP/sh.err"
ok $? "/bin/sh -c true: micad run exits 0"
is "$(q "$TMP/sh.db" "SELECT sum(instructions) FROM sched_interval")" \
   "$(q "$TMP/sh.db" "SELECT sum(ins) FROM interval")" \
   "/bin/sh -c true: every instruction retires in the model"
is "$(q "$TMP/sh.db" "SELECT count(*) FROM sched_hot_block")" 10 "/bin/sh -c true: 10 hot blocks"

# The bundled sample once stalled the model on alderlake (fnstcw then a
# load of the word it stores: a store without a store-data uop, a load
# waiting for ever for its forward; tests/sched_stall_test): on every
# uop model it must now run without the watchdog (which stays as a
# safety net) and every traced instruction must retire in the model.
for cpu in alderlake skylake haswell ivybridge sandybridge; do
	rm -f "$TMP/sample.db"
	timeout 300 "$MICAD" run -q --mcpu $cpu --db "$TMP/sample.db" -o /dev/null -- \
		"$top_builddir/contrib/sample/sample" > /dev/null 2> "$TMP/sample.err"
	ok $? "contrib/sample/sample --mcpu $cpu: micad run ends"
	n=$(q "$TMP/sample.db" "SELECT sum(instructions) FROM sched_interval")
	m=$(q "$TMP/sample.db" "SELECT sum(ins) FROM interval")
	is "$n" "$m" "contrib/sample/sample --mcpu $cpu: every instruction retires in the model"
	! grep -q "pipeline model stalled" "$TMP/sample.err"
	ok $? "contrib/sample/sample --mcpu $cpu: the stall watchdog never fires"
done

"$MICAD" run --mcpu btver2 --db "$TMP/amd.db" --interval 200 -o /dev/null -- "$ASM/loop" \
	2> "$TMP/amd.err"
ok $? "--mcpu btver2: micad run exits 0"
grep -q "no uop-level model of 'btver2': using skylake" "$TMP/amd.err"
ok $? "--mcpu btver2: a warning names the fallback"
is "$(q "$TMP/amd.db" "SELECT cpu FROM sched_config")" skylake "--mcpu btver2: skylake stored"
"$MICAD" run -q --mcpu pentium4 --db "$TMP/bad.db" -- "$ASM/loop" 2> "$TMP/bad.err"
is "$?" 2 "--mcpu pentium4: refused (exit 2)"
grep -q "'pentium4' is not a CPU model" "$TMP/bad.err"
ok $? "--mcpu pentium4: the message names it"

done_testing
