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

latest1='micad_thread_latest_interval{session="3",tid="300"} 1'
ilp1='micad_interval_ilp{session="3",tid="300",analysis="ilp",window="256"} 16'
for round in 1 2 3; do
	for p in "/metrics?session=3" /metrics; do
		scrapes 6 "$p"
		is "$(lacking 6 "$latest1") $(lacking 6 "$ilp1")" "0 0" \
			"before: $p, 6 at once (round $round): interval 1 of tid 300, ILP 2000 / 125"
	done
done
scrapes_of_1 before

# A new interval of the running session's thread 300: idx 2, 4000
# instructions, 1000 cycles with a window of 256 (ILP 4).
sqlite3 "$db" "BEGIN;
	INSERT INTO interval (id, session_id, tid, idx, full, final, ins, ins_aligned, total_ins,
			      total_ins_aligned, started_at, ended_at)
	VALUES (8, 3, 300, 2, 0, 0, 4000, 3990, 7000, 6970, 1700000008.0, 1700000009.0);
	INSERT INTO ilp (interval_id, analysis, window, cycles) VALUES (8, 'ilp', 256, 1000);
	COMMIT;"
ok $? "interval 2 of tid 300 stored beside the server"
latest2='micad_thread_latest_interval{session="3",tid="300"} 2'
ilp2='micad_interval_ilp{session="3",tid="300",analysis="ilp",window="256"} 4'
for round in 1 2; do
	for p in "/metrics?session=3" /metrics; do
		scrapes 6 "$p"
		is "$(lacking 6 "$latest2") $(lacking 6 "$ilp2")" "0 0" \
			"after: $p, 6 at once (round $round): interval 2, ILP 4000 / 1000"
	done
done
hasnt "$(cat "$tmp/scrape.1")" "micad_interval_simulated_ipc{session=\"3\",tid=\"300\"}" \
	"no IPC of interval 2 yet (none stored)"
scrapes_of_1 after

# The scheduling model's row of the same interval, in a later
# transaction: same latest interval, one more gauge.
sqlite3 "$db" "INSERT INTO sched_interval (session_id, tid, idx, final, cycles, instructions, ipc)
	VALUES (3, 300, 2, 0, 1600, 4000, 2.5)"
ok $? "its simulated IPC stored after it"
ipc2='micad_interval_simulated_ipc{session="3",tid="300"} 2.5'
for p in "/metrics?session=3" /metrics; do
	scrapes 6 "$p"
	is "$(lacking 6 "$ipc2") $(lacking 6 "$latest2")" "0 0" \
		"after the IPC: $p, 6 at once: IPC 2.5 of interval 2"
done

get "/api/sessions/3/series?metric=ilp_256&tid=300"
has "$body" '"interval":[0,1,2],"value":[8,16,4]' "the series has interval 2 too"
stop_server
done_testing
