#!/bin/sh
# /metrics of a real daemon with a session running, and its scrape
# credential (issue 22): 'micad serve' keeps its user's HTTP token in a
# file (--token-file; by default http-token beside the control socket),
# mode 0600, the same after a restart, usable as the Bearer token that a
# Prometheus credentials_file holds.  A session whose program cannot run
# keeps the reason.  While /bin/cat, traced, reads a FIFO
# the test holds open, the scrape has the session's counters and the
# latest interval's gauges, no label that grows with the intervals, and
# promtool check metrics accepts it.  Every wait is on a condition.
. "$top_srcdir/tests/http_lib.sh"

command -v promtool >/dev/null 2>&1 ||
	skip_all "promtool is not installed (apt-get install prometheus)"

MICACTL=$top_builddir/micactl
db=$tmp/results.db
sock=$tmp/s/control.sock
holder=
catpid=

cleanup() {
	[ -n "$holder" ] && kill "$holder" 2>/dev/null
	[ -n "$catpid" ] && wait "$catpid" 2>/dev/null
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null
		wait "$server_pid" 2>/dev/null
	fi
	rm -rf "$tmp"
}

# serve [ARGS]: a private micad serve; sets base from 'micactl ui'.
serve() {
	rm -f "$sock"
	"$top_builddir/micad" serve --socket "$sock" --db "$db" --http 127.0.0.1:0 "$@" \
		2>"$tmp/server.err" &
	server_pid=$!
	i=0
	while [ ! -S "$sock" ] && [ $i -lt 1000 ] && kill -0 "$server_pid" 2>/dev/null; do
		sleep 0.02
		i=$((i + 1))
	done
	[ -S "$sock" ] || { echo "Bail out! micad serve did not start: $(cat "$tmp/server.err")"; exit 1; }
	url=$(MICAD_SOCKET=$sock "$MICACTL" ui --no-spawn)
	base=${url%%/\?token=*}
}
unserve() {
	kill "$server_pid"
	wait "$server_pid"
	server_pid=
}
export MICAD_SOCKET="$sock"

serve
tf=$tmp/s/http-token
ok $([ -f "$tf" ]; echo $?) "the token file is made beside the socket (http-token)"
is "$(stat -c %a "$tf")" 600 "... mode 0600"
tok1=$(cat "$tf")
is "$(printf '%s' "$tok1" | tr -d '0-9a-f' | wc -c | tr -d ' ')/${#tok1}" 0/64 "... 64 hex digits"
has "$(cat "$tmp/server.err")" "HTTP access token of uid $(id -u) in $tf" "the log says where it is"
tok=$tok1
get /api
is "$code" 200 "the file's token is the server's"
unserve
serve
is "$(cat "$tf")" "$tok1" "after a restart the file is unchanged"
get /api
is "$code" 200 "... and its token still works: a stable scrape credential"
unserve
chmod 644 "$tf"
serve
has "$(cat "$tmp/server.err")" "not a regular file of uid $(id -u) with mode 0600" \
	"a token file others may read is refused, saying why"
tok=$tok1
get /api
is "$code" 401 "... and its token is not taken"
unserve
rm -f "$tf"
serve --token-file "$tmp/other-token"
tok=$(cat "$tmp/other-token")
get /api
is "$code" 200 "--token-file FILE: the token kept there"

# A session that cannot start keeps why, and the API says it.
"$MICACTL" run --no-spawn -- "$tmp/no-such-program" >/dev/null 2>&1
is "$?" 127 "micactl run of a missing program: exit status 127"
get "/api/sessions?limit=1"
has "$body" "\"end_reason\":\"error\",\"threads\":0,\"intervals\":0,\"instructions\":0,\"error\":\"cannot run '$tmp/no-such-program': No such file or directory\"" \
	"the failed session's row says why (its error column)"

# A running session: cat reads a FIFO that a writer holds open.
mkfifo "$tmp/fifo"
"$MICACTL" run --no-spawn --interval 2000 -- /bin/cat <"$tmp/fifo" >"$tmp/cat.out" 2>"$tmp/cat.err" &
catpid=$!
sleep 100000 >"$tmp/fifo" &
holder=$!
# feed: more input for cat; bounded, so that a cat that never started
# (micactl failed) fails the test instead of hanging it.
feed() {
	timeout 120 sh -c 'seq 1 3000 >"$1"' sh "$tmp/fifo" ||
		echo "# writing to cat's FIFO failed or timed out: $(cat "$tmp/cat.err")"
}
feed
sid=
i=0
while [ $i -lt 1200 ]; do
	get /metrics
	sid=$(printf '%s\n' "$body" | sed -n 's/^micad_session_running{session="\([0-9]*\)",mode="run",command="\/bin\/cat"} 1$/\1/p')
	[ -n "$sid" ] && printf '%s\n' "$body" | grep -q "^micad_thread_latest_interval{session=\"$sid\"" &&
		printf '%s\n' "$body" | grep -q "^micad_mgsim_executed_instructions_total{session=\"$sid\"}" && break
	sleep 0.1
	i=$((i + 1))
done
ok $([ -n "$sid" ]; echo $?) "the running session is scraped (session $sid)"
has "$body" "micad_thread_latest_interval{session=\"$sid\"," "... with its latest interval's gauges"
has "$body" "# TYPE micad_mgsim_executed_instructions_total counter" "... and its live MGSim counters"
hasnt "$body" 'interval="' "no interval label"
printf '%s\n' "$body" >"$tmp/scrape"
promtool check metrics <"$tmp/scrape" >"$tmp/promtool.out" 2>&1
ok $? "promtool check metrics accepts the scrape of a running session $(head -c 400 "$tmp/promtool.out")"
# No series per interval: after more intervals (two more batches of
# input, each waited for), the scrape has the same series (name and
# labels), values aside.  Series whose value is not a number yet (a ratio
# of zero, the scheduling model's row not in yet) come and go, so the
# comparison is of the two later scrapes.
keys() { grep '^micad_' | sed 's/} .*/}/' | grep -v '^micad_interval_simulated_ipc{' | sort; }
feed_and_scrape() {	# feed_and_scrape FILE BEFORE: more input, a scrape of more than BEFORE intervals
	before=$2
	feed
	i=0
	while [ $i -lt 1200 ]; do
		get /metrics
		n=$(printf '%s\n' "$body" | sed -n "s/^micad_thread_intervals_total{session=\"$sid\",tid=\"[0-9]*\"} //p")
		[ -n "$n" ] && [ "$n" -gt "${before:-0}" ] && break
		sleep 0.1
		i=$((i + 1))
	done
	printf '%s\n' "$body" | keys >"$1"
	echo "$n"
}
n1=$(sed -n "s/^micad_thread_intervals_total{session=\"$sid\",tid=\"[0-9]*\"} //p" "$tmp/scrape")
n2=$(feed_and_scrape "$tmp/keys2" "$n1")
n3=$(feed_and_scrape "$tmp/keys3" "$n2")
is "$(diff "$tmp/keys2" "$tmp/keys3" | head -5)" "" \
	"more intervals ($n2, then $n3), the same $(wc -l <"$tmp/keys3" | tr -d ' ') series"
kill "$holder"
holder=
wait "$catpid"
is "$?" 0 "cat ended when the FIFO closed"
catpid=
unserve
done_testing
