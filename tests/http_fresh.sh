#!/bin/sh
# What the server keeps between requests is never served stale: /metrics
# keeps the gauges of the latest intervals it rendered on each pooled
# database connection (http_keep), and the scrape after a commit must show
# what was committed.  Several scrapes at once fill the texts of several
# connections; then a new interval is stored (sqlite3 beside the server,
# as micad's writer would), then the scheduling model's IPC of that
# interval in a later transaction, and every scrape after each commit,
# several at once again, must show it, as must the series of the metric.
. "$top_srcdir/tests/http_lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip_all "sqlite3 is not installed (apt-get install sqlite3)"
make_fixture
start_server --live 3

# scrapes N PATH: N requests of PATH at once, the bodies in $tmp/scrape.1..N
scrapes() {
	i=0
	pids=
	while [ "$i" -lt "$1" ]; do
		i=$((i + 1))
		curl -sS --max-time 20 -H "Authorization: Bearer $tok" -o "$tmp/scrape.$i" \
			"$base$2" 2>>"$tmp/curl.err" &
		pids="$pids $!"
	done
	for pid in $pids; do
		wait "$pid"
	done
}

# lacking N LINE: how many of the N scrapes lack LINE
lacking() {
	k=0
	i=0
	while [ "$i" -lt "$1" ]; do
		i=$((i + 1))
		grep -qxF "$2" "$tmp/scrape.$i" || k=$((k + 1))
	done
	echo "$k"
}

# Another session's scrape between them: what is kept is for the
# sessions it was made of.
other='micad_thread_latest_interval{session="1",tid="100"} 2'
scrapes_of_1() {
	scrapes 6 "/metrics?session=1"
	is "$(lacking 6 "$other") $(cat "$tmp"/scrape.* | grep -c 'session="3"')" "0 0" \
		"$1: /metrics?session=1, 6 at once: session 1's gauges, none of session 3"
}

# check_scrapes WHEN ROUNDS LINE1 LINE2 WHAT: ROUNDS times, 6 scrapes at
# once of session 3 and 6 of all running sessions; each has both lines.
check_scrapes() {
	for round in $(seq "$2"); do
		for p in "/metrics?session=3" /metrics; do
			scrapes 6 "$p"
			is "$(lacking 6 "$3") $(lacking 6 "$4")" "0 0" \
				"$1: $p, 6 at once (round $round): $5"
		done
	done
}

latest1='micad_thread_latest_interval{session="3",tid="300"} 1'
ilp1='micad_interval_ilp{session="3",tid="300",analysis="ilp",window="256"} 16'
# Session 1's scrapes first: the texts kept when the commit comes are
# session 3's, the ones a stale answer would come from.
scrapes_of_1 before
check_scrapes before 3 "$latest1" "$ilp1" "interval 1 of tid 300, ILP 2000 / 125"

# store_interval ID SESSION TID IDX INS CYCLES: an interval row and its
# ILP with a window of 256, in one transaction (as micad's writer stores
# an interval with its analyses).
store_interval() {
	sqlite3 "$db" "BEGIN;
		INSERT INTO interval (id, session_id, tid, idx, full, final, ins, ins_aligned,
				      total_ins, total_ins_aligned, started_at, ended_at)
		VALUES ($1, $2, $3, $4, 0, 0, $5, $5 - 10, 100000 + $5, 100000 + $5 - 10,
			1700000000.0 + $4, 1700000001.0 + $4);
		INSERT INTO ilp (interval_id, analysis, window, cycles) VALUES ($1, 'ilp', 256, $6);
		COMMIT;"
}

# A new interval of the running session's thread 300: idx 2, 4000
# instructions, 1000 cycles with a window of 256 (ILP 4).
store_interval 8 3 300 2 4000 1000
ok $? "interval 2 of tid 300 stored beside the server"
latest2='micad_thread_latest_interval{session="3",tid="300"} 2'
ilp2='micad_interval_ilp{session="3",tid="300",analysis="ilp",window="256"} 4'
check_scrapes after 2 "$latest2" "$ilp2" "interval 2, ILP 4000 / 1000"
hasnt "$(cat "$tmp/scrape.1")" "micad_interval_simulated_ipc{session=\"3\",tid=\"300\"}" \
	"no IPC of interval 2 yet (none stored)"
scrapes_of_1 after
check_scrapes "after, again" 1 "$latest2" "$ilp2" "interval 2 (session 3's texts kept again)"

# The scheduling model's row of the same interval, in a later
# transaction: same latest interval, one more gauge.
sqlite3 "$db" "INSERT INTO sched_interval (session_id, tid, idx, final, cycles, instructions, ipc)
	VALUES (3, 300, 2, 0, 1600, 4000, 2.5)"
ok $? "its simulated IPC stored after it"
ipc2='micad_interval_simulated_ipc{session="3",tid="300"} 2.5'
check_scrapes "after the IPC" 1 "$ipc2" "$latest2" "IPC 2.5 of interval 2"

get "/api/sessions/3/series?metric=ilp_256&tid=300"
has "$body" '"interval":[0,1,2],"value":[8,16,4]' "the series has interval 2 too"

# A finished session's series of one thread comes from kept pieces
# (http_pieces.c).  An interval stored after them (which micad's writer
# does not do to a finished session) must show all the same.
for round in 1 2; do
	get "/api/sessions/1/series?metric=ilp_256&tid=100"
	has "$body" '"interval":[0,1,2],"value":[8,16,24]' \
		"finished session 1, tid 100 (round $round): intervals 0-2"
done
store_interval 9 1 100 3 5000 2500
ok $? "interval 3 of session 1's tid 100 stored beside the server"
get "/api/sessions/1/series?metric=ilp_256&tid=100"
has "$body" '"interval":[0,1,2,3],"value":[8,16,24,2]' "... and its series has it"
# The scheduling model's rows are stored apart from their interval (and
# replaced): an IPC stored in a finished session shows at once.
get "/api/sessions/1/series?metric=ipc&tid=100"
is "$code" 404 "finished session 1, tid 100: no IPC stored"
sqlite3 "$db" "INSERT INTO sched_interval (session_id, tid, idx, final, cycles, instructions, ipc)
	VALUES (1, 100, 0, 0, 400, 1000, 2.5)"
get "/api/sessions/1/series?metric=ipc&tid=100"
has "$body" '"interval":[0],"value":[2.5]' "... then one stored beside the server: it shows"
stop_server

# Kept pieces give the answers of the query over the range: on 3000
# intervals (12 pieces), ranges across pieces' edges, limits within a
# piece, the thread's end, twice (the second from kept pieces), against a
# server with a plan log, which reads every answer with its query.
db=$tmp/long.db
"$top_builddir/tests/http_fixture" "$db" 3000 >/dev/null || {
	echo "Bail out! http_fixture $db 3000 failed"
	exit 1
}
start_server --plan-log "$tmp/plans"
plain_pid=$server_pid plain_base=$base plain_tok=$tok
other_pids=$server_pid
start_server
differ=
for round in 1 2; do
	for q in "from=0" "from=0&limit=256" "from=255&limit=300" "from=256&to=511" "from=700&to=1500" \
		"from=1000&limit=2000" "from=2900" "from=2999&limit=500" "from=2990&to=3100" \
		"from=5000&limit=300" "from=1&to=300&limit=299"; do
		for m in ilp_256 instructions mix_mem_read data_footprint_bytes reuse_cold mpki_GAg_4 ipc; do
			p="/api/sessions/1/series?metric=$m&tid=400&$q"
			get "$p"
			kept=$body
			b=$(curl -sS --max-time 20 -H "Authorization: Bearer $plain_tok" "$plain_base$p")
			[ "$kept" = "$b" ] || differ="$differ $m?$q"
		done
	done
done
is "$differ" "" "series from kept pieces = series read with the query (77 requests, twice)"
stop_server
kill "$plain_pid"
wait "$plain_pid"
other_pids=
done_testing
