#!/bin/sh
# The web UI in headless Chromium against a real daemon: a private
# 'micad serve' (its own socket, database and loopback port) traces
# tests/cprog/static_prog with 'micactl run' (84,569 instructions,
# intervals of 2,000, the scheduling model on); the URL and token come from
# 'micactl ui'.  The session list and the session page render; the number
# of charts the page reports is the number of charts with data in the
# database; no script error, CSP report or console error; the numbers on
# the page are the database's.  Then a session that is still running
# (/bin/cat reading a FIFO): the open page picks up the live MGSim snapshot
# after the test feeds the program, and the new interval and the end of
# the session after the test closes the FIFO.  The MGSim table shows
# counters 13-15 (the host clock) decoded as UTC date and time, as a
# decode done here of the API's values gives them.  Then the session list,
# left open, picks up a session the test starts (running) and shows it
# exited when the test closes its FIFO.  Every wait is on a condition,
# with generous bounds; no timing is asserted.
#
# Chromium is driven over the DevTools protocol by tests/browser_cdp.py.
# Screenshots (1280x800 and whole pages) are kept in
# tests/browser-artifacts/ of the build tree: daemon-*.png.
. "$top_srcdir/tests/http_lib.sh"

chrome=
for c in chromium chromium-browser google-chrome; do
	if command -v "$c" >/dev/null 2>&1; then
		chrome=$c
		break
	fi
done
[ -n "$chrome" ] || skip_all "Chromium is not installed (apt-get install chromium)"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed (it drives Chromium)"
command -v sqlite3 >/dev/null 2>&1 || skip_all "no sqlite3 command-line tool"

MICACTL=$top_builddir/micactl
art=$top_builddir/tests/browser-artifacts
mkdir -p "$art"
db=$tmp/results.db
sock=$tmp/s/control.sock
holder=
catpid=

# The daemon is the http_lib server: its cleanup stops it.  Ours also
# ends the FIFO's writer (the traced cat then ends) and micactl.
cleanup() {
	[ -n "$holder" ] && kill "$holder" 2>/dev/null
	[ -n "$catpid" ] && wait "$catpid" 2>/dev/null
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null
		wait "$server_pid" 2>/dev/null
	fi
	rm -rf "$tmp"
}

"$top_builddir/micad" serve --socket "$sock" --db "$db" --http 127.0.0.1:0 \
	--web-root "$top_srcdir/web" 2>"$tmp/server.err" &
server_pid=$!
socket_or_dead() { [ -S "$sock" ] || ! kill -0 "$server_pid" 2>/dev/null; }
wait_until 300 "micad serve to listen on its socket" socket_or_dead
[ -S "$sock" ] || { echo "Bail out! micad serve did not start: $(cat "$tmp/server.err")"; exit 1; }
export MICAD_SOCKET="$sock"

sq() { sqlite3 -cmd ".timeout 10000" "$db" "$1"; }
# 84569 -> 84,569 (the page's en-US grouping)
group() { echo "$1" | sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/' -e 'ta'; }
# st EXPR: a page expression over the parsed #test-status (false until set)
st() {
	echo "(() => { try { const s = JSON.parse(document.getElementById('test-status').textContent); return ($1); } catch (e) { return false; } })()"
}
status_js="document.getElementById('test-status').textContent"
# drive NAME STEP...: Chromium at 1280x800 (profile and log per NAME)
drive() {
	name=$1
	shift
	python3 "$top_srcdir/tests/browser_cdp.py" --chrome "$chrome" --profile "$tmp/prof-$name" \
		--log "$tmp/$name.log" --size 1280,800 --timeout 120 "$@" 2>"$tmp/$name.err"
	ok $? "$name: Chromium ran every step $(sed 's/^/ /' "$tmp/$name.err" | head -c 300)"
}
# console NAME: what Chromium reported at level error or warning
console() {
	grep -E '^(error|warning) ' "$tmp/$1.log" || true
}
# png_size FILE: "WIDTHxHEIGHT" from the IHDR chunk
png_size() {
	od -An -tu1 -j16 -N8 "$1" | awk '{ printf "%dx%d", (($1*256+$2)*256+$3)*256+$4, (($5*256+$6)*256+$7)*256+$8 }'
}

# A real session: static_prog, intervals of 2,000 instructions.
printf 'analysis_type: all\ninterval_size: 2000\n' >"$tmp/mica.conf"
"$MICACTL" run --no-spawn -c "$tmp/mica.conf" -- "$top_builddir/tests/cprog/static_prog" \
	>"$tmp/prog.out" 2>"$tmp/run.err"
is "$?" 0 "micactl run static_prog: exit status 0"
sid=$(sed -n 's/^micactl: session \([0-9]*\), pid .*/\1/p' "$tmp/run.err" | head -n 1)
[ -n "$sid" ] || { echo "Bail out! no session number: $(cat "$tmp/run.err")"; exit 1; }
url=$("$MICACTL" ui --no-spawn)
base=${url%%/\?token=*}
tok=${url##*\?token=}
has "$url" "http://127.0.0.1:" "micactl ui: a loopback URL with the token"

tid=$(sq "SELECT tid FROM thread WHERE session_id = $sid")
ins=$(sq "SELECT sum(ins) FROM interval WHERE session_id = $sid")
nint=$(sq "SELECT count(*) FROM interval WHERE session_id = $sid")
[ "$nint" -ge 20 ] && [ "$ins" -lt 1000000 ]
ok $? "the session has $nint intervals and $ins instructions (< 10^6)"
# The charts with data: one per conversion view with rows for the thread,
# two for reuse_distance (histogram and heatmap), one for sched_interval.
want=0
for v in ilp_per_window instruction_mix misprediction_rate register_traffic stride_cdf \
	footprint_bytes reuse_distance; do
	n=$(sq "SELECT count(*) FROM $v WHERE session_id = $sid AND tid = $tid")
	[ "$n" -gt 0 ] && want=$((want + 1))
	[ "$n" -gt 0 ] && [ $v = reuse_distance ] && want=$((want + 1))
done
n=$(sq "SELECT count(*) FROM sched_interval WHERE session_id = $sid AND tid = $tid")
[ "$n" -gt 0 ] && want=$((want + 1))
is "$want" 9 "the database has data for 9 charts (every view and the scheduling model)"

# The page's decoder of counters 13-15 on mgsim-counters.md §2's worked
# examples, the MT-Alpha sign-extended time word (read exactly from JSON)
# included: one line per example.
v14() { echo "[0,0,0,0,0,0,0,0,0,0,0,0,0,0,$1,0]"; }
decode_js="[mgsimDecode(14, 35841), mgsimDecode(15, 0, $(v14 35841)),
	mgsimDecode(14, 63549), mgsimDecode(15, 1840189202, $(v14 63549)),
	mgsimDecode(15, 3212704273, $(v14 59988)),
	mgsimDecode(15, JSON.parse('{\"v\":18446744072627288593}', bigReviver).v, $(v14 59988)),
	String(JSON.parse('[18446744072627288593]', bigReviver)[0]),
	mgsimDecode(13, 1709214330), mgsimDecode(13, 0)].join('\\n')"

# The session list.
drive index "go:$base/?token=$tok" "wait:$(st 's.page === "index" && s.sessions >= 1')" \
	"eval:$tmp/index.status=$status_js" "dom:$tmp/index.dom" "shot:$art/daemon-index.png" \
	"layout:$tmp/index.layout=#sessions|#sessions tbody tr"
status=$(cat "$tmp/index.status")
dom=$(cat "$tmp/index.dom")
has "$status" '"page":"index","sessions":1,"total":1' "session list: the one session"
has "$status" '"errors":[]' "session list: no script error"
is "$(console index)" "" "session list: no console error or warning, no CSP report"
has "$dom" "<a href=\"session.html#session=$sid\">$sid</a>" "session list: the session's link"
has "$dom" "<td class=\"num\">$(group "$nint")</td><td class=\"num\">$(group "$ins")</td>" \
	"session list: intervals ($nint) and instructions ($ins) as in the database"
is "$(png_size "$art/daemon-index.png")" 1280x800 "screenshot kept: daemon-index.png, 1280x800"
python3 "$top_srcdir/tests/layout_check.py" "$art/daemon-index.png" "$tmp/index.layout" \
	"count:#sessions tbody tr=1" "inside:#sessions tbody tr" "atleast:#sessions tbody tr=600x10" \
	"drawn:#sessions tbody tr=3" >"$tmp/index.lc" 2>&1
ok $? "daemon-index.png: the session's row in the viewport, drawn $(head -c 300 "$tmp/index.lc" | tr '\n' ' ')"

# The session page: charts, summary, MGSim table, hot blocks.
drive session "go:$base/session.html?token=$tok#session=$sid" \
	"wait:$(st 's.page === "session" && s.mgsim && s.tid')" \
	"eval:$tmp/session.status=$status_js" "dom:$tmp/session.dom" \
	"shot:$art/daemon-session.png" "fullshot:$art/daemon-session-full.png" \
	"layout:$tmp/session.layout=#summary|#charts > section.card:has(canvas)|#charts canvas|#mgsim-table" \
	"eval:$tmp/scroll1=document.getElementById('mgsim').scrollIntoView() || 'ok'" \
	"shot:$art/daemon-session-mgsim.png" \
	"eval:$tmp/decode.ex=$decode_js"
status=$(cat "$tmp/session.status")
dom=$(cat "$tmp/session.dom")
has "$status" "\"charts\":$want," "session page: $want charts rendered, one per chart with data"
has "$status" '"errors":[]' "session page: no script error"
is "$(console session)" "" "session page: no console error or warning, no CSP report"
has "$status" "\"tid\":\"$tid\",\"from\":0,\"to\":$((nint - 1))," "session page: the whole thread"
has "$dom" "<span class=\"muted\">instructions </span><b>$(group "$ins")</b>" \
	"summary: instructions as in the database"
has "$dom" "<span class=\"muted\">intervals </span><b>$nint</b>" "summary: intervals as in the database"
has "$dom" '<h2>Simulated IPC</h2>' "the scheduling model's IPC chart is shown"
# The MGSim counter 1 at the last interval, and its delta.
last=$(sq "SELECT max(idx) FROM mgsim_counters WHERE session_id = $sid AND tid = $tid")
v1=$(sq "SELECT n_exec_insns FROM mgsim_counters WHERE session_id = $sid AND tid = $tid AND idx = $last")
d1=$(sq "SELECT c.n_exec_insns - p.n_exec_insns FROM mgsim_counters c JOIN mgsim_counters p
	ON p.session_id = c.session_id AND p.tid = c.tid AND p.idx = c.idx - 1
	WHERE c.session_id = $sid AND c.tid = $tid AND c.idx = $last")
has "$dom" ">n_exec_insns</td><td>instructions</td><td class=\"num\">$(group "$v1")</td><td class=\"num\">$(group "$d1")</td>" \
	"MGSim table: n_exec_insns $v1, last delta $d1, as in the database"
is "$v1" "$(sq "SELECT sum(ins_aligned) FROM interval WHERE session_id = $sid")" \
	"MGSim n_exec_insns = the instructions with a REP string instruction once"
c0=$(sq "SELECT clocks FROM mgsim_counters WHERE session_id = $sid AND tid = $tid AND idx = $last")
has "$dom" ">clocks</td><td>master cycles</td><td class=\"num\">$(group "$c0")</td>" \
	"MGSim table: clocks $c0 as in the database"
has "$status" "\"mgsim\":{\"source\":\"interval\",\"n_exec_insns\":$v1,\"snapshot\":\"$tid:$last\"}" \
	"MGSim table: the last interval's snapshot of a finished session"
addr=$(sq "SELECT printf('0x%x', address) FROM sched_hot_block WHERE session_id = $sid AND rank = 1")
has "$dom" "<td class=\"num\">1</td><td class=\"addr\">$addr" "hot blocks: the hottest block's address"
is "$(cat "$tmp/decode.ex")" "1970-01-01 UTC
1970-01-01 00:00:00.000000 UTC
2024-02-29 UTC
2024-02-29 13:45:30.123456 UTC
2017-03-20 23:59:59.999968 UTC
2017-03-20 23:59:59.999968 UTC
18446744072627288593
2024-02-29 13:45:30 UTC
1970-01-01 00:00:00 UTC" "page decoder: the worked examples of mgsim-counters.md 2, the sign-extended time word too"
# Counters 13-15 in the table: the raw word, and the UTC date and time
# that a decode here of the API's values gives.
get "/api/sessions/$sid/mgsim/intervals?tid=$tid&from=$last&to=$last"
clock=$(echo "$body" | python3 -c '
import json, sys, time
v = json.load(sys.stdin)["intervals"][-1]["values"]
t, d, w = v[13], v[14], v[15] & 0xffffffff
date = "%04d-%02d-%02d" % (1900 + (d >> 9), ((d >> 5) & 15) + 1, d & 31)
hms = "%02d:%02d:%02d.%06d" % (w >> 27, (w >> 21) & 63, (w >> 15) & 63, (w & 0x7fff) << 5)
print(t, d, v[15], time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t)) + " UTC",
      date + " UTC", date + " " + hms + " UTC", sep="|")')
IFS='|' read -r c13 c14 c15 t13 t14 t15 <<EOF
$clock
EOF
has "$dom" ">notused2</td><td>s</td><td class=\"num\" title=\"decoded (UTC): $t13\">$(group "$c13")<div class=\"decoded\">$t13</div></td>" \
	"MGSim table: counter 13 $c13 shown with $t13"
has "$dom" ">notused3</td><td>packed</td><td class=\"num\" title=\"decoded (UTC): $t14\">$(group "$c14")<div class=\"decoded\">$t14</div></td>" \
	"MGSim table: counter 14 $c14 shown with $t14"
has "$dom" ">notused4</td><td>packed</td><td class=\"num\" title=\"decoded (UTC): $t15\">$(group "$c15")<div class=\"decoded\">$t15</div></td>" \
	"MGSim table: counter 15 $c15 shown with $t15"
# One clock reading: the packed words name the second counter 13 names.
is "${t15%.*}" "${t13% UTC}" "MGSim counters 14 and 15 decode to counter 13's second"

# A chart's CSV link gives the view's rows.
href=$(sed -n 's/.*<a href="\(api\/sessions\/[0-9]*\/views\/footprint_bytes[^"]*format=csv\)".*/\1/p' \
	"$tmp/session.dom" | sed 's/&amp;/\&/g' | head -n 1)
get "/$href"
is "$(echo "$body" | tail -n +2 | cut -d, -f3,4 | tr '\n' ' ')" \
	"$(sq "SELECT interval || ',' || data_block_bytes FROM footprint_bytes WHERE session_id = $sid AND tid = $tid ORDER BY interval" | tr '\n' ' ')" \
	"the footprint chart's CSV link: the view's rows"
is "$(png_size "$art/daemon-session.png")" 1280x800 "screenshot kept: daemon-session.png, 1280x800"
sz=$(png_size "$art/daemon-session-full.png")
[ "${sz%x*}" = 1280 ] && [ "${sz#*x}" -gt 1600 ]
ok $? "screenshot kept: daemon-session-full.png, the whole page ($sz)"
python3 "$top_srcdir/tests/layout_check.py" "$art/daemon-session-full.png" "$tmp/session.layout" \
	"count:#charts > section.card:has(canvas)=$want" "atleast:#charts > section.card:has(canvas)=300x150" \
	"disjoint:#charts > section.card:has(canvas)" "inside:#charts > section.card:has(canvas)" \
	"drawn:#charts canvas=3" "below:#summary,#charts > section.card:has(canvas)" \
	"below:#charts > section.card:has(canvas),#mgsim-table" >"$tmp/session.lc" 2>&1
ok $? "daemon-session-full.png: $want charts in place, without overlap, each drawn, the MGSim table below $(head -c 300 "$tmp/session.lc" | tr '\n' ' ')"

# A running session: cat reads a FIFO; a writer holds it open (cat blocks
# in read, the session goes on) until the test ends it.
mkfifo "$tmp/fifo"
"$MICACTL" run --no-spawn --interval 5000 -- /bin/cat <"$tmp/fifo" >"$tmp/cat.out" 2>"$tmp/cat.err" &
catpid=$!
sleep 100000 >"$tmp/fifo" &
holder=$!
# Wait until cat runs, traced, and is blocked in read(2) on the FIFO (its
# /proc/PID/syscall names call 0): from then on it runs no instruction
# until the test feeds it.
lid= lpid=
cat_blocked() {
	get "/api/sessions?state=running"
	# shellcheck disable=SC2046
	set -- $(echo "$body" | python3 -c '
import json, sys
for s in json.load(sys.stdin)["sessions"]:
    if s["command"] == "/bin/cat" and s.get("pid"):
        print(s["id"], s["pid"])' 2>/dev/null)
	[ $# -eq 2 ] && lid=$1 lpid=$2 && [ "$(cut -d' ' -f1 "/proc/$2/syscall" 2>/dev/null)" = 0 ]
}
wait_until 300 "cat to be traced and blocked in read(2)" cat_blocked
ok $? "a running session ($lid): cat (pid $lpid) blocked in read(2)"
# The page's live snapshot is the API's, read at the same moment by the
# page itself (cat is blocked, so the only change left is the tracer
# publishing what it has): then both are recorded.
api_live="fetch('api/sessions/$lid/mgsim/counters/1').then((r) => r.json())"
same_live="$api_live.then((j) => { const s = JSON.parse(document.getElementById('test-status').textContent);
	return s.polls >= 1 && s.mgsim && s.mgsim.source === 'live' && j.source === 'live' &&
		s.mgsim.n_exec_insns === j.value && (window.micadTestCur = j.value) > 0; }).catch(() => false)"

drive live "go:$base/session.html?token=$tok#session=$lid" \
	"wait:$same_live" \
	"eval:$tmp/live1.status=$status_js" "eval:$tmp/live1.api=window.micadTestCur" \
	"shot:$art/daemon-live.png" \
	"run:seq 1 2000 >'$tmp/fifo'" \
	"wait:$(st "s.mgsim && s.mgsim.n_exec_insns > window.micadTestCur")" \
	"eval:$tmp/live2.status=$status_js" \
	"run:kill $holder" \
	"wait:$(st 's.running === false')" \
	"eval:$tmp/live3.status=$status_js" "dom:$tmp/live3.dom" "fullshot:$art/daemon-live-ended.png"
wait "$catpid"
is "$?" 0 "cat ended (exit status 0) when the FIFO closed"
catpid=
holder=
s1=$(cat "$tmp/live1.status")
cur=$(cat "$tmp/live1.api")
s2=$(cat "$tmp/live2.status")
s3=$(cat "$tmp/live3.status")
has "$s1" "\"running\":true," "live page: the session is running"
has "$s1" "\"mgsim\":{\"source\":\"live\",\"n_exec_insns\":$cur," \
	"live page: the MGSim table shows the live snapshot ($cur instructions)"
n2=$(echo "$s2" | sed -n 's/.*"n_exec_insns":\([0-9]*\).*/\1/p')
p1=$(echo "$s1" | sed -n 's/.*"polls":\([0-9]*\).*/\1/p')
p2=$(echo "$s2" | sed -n 's/.*"polls":\([0-9]*\).*/\1/p')
[ "$n2" -gt "$cur" ] && [ "$p2" -gt "$p1" ]
ok $? "live page: a later poll ($p2 > $p1) showed the fed program's new snapshot ($n2 > $cur)"
is "$(cmp "$tmp/cat.out" /dev/stdin <<EOF
$(seq 1 2000)
EOF
echo $?)" 0 "cat copied what the test fed it"
i1=$(echo "$s1" | sed -n 's/.*"intervals":\([0-9]*\).*/\1/p')
lins=$(sq "SELECT sum(ins) FROM interval WHERE session_id = $lid")
lint=$(sq "SELECT count(*) FROM interval WHERE session_id = $lid")
has "$s3" "\"running\":false,\"intervals\":$lint" \
	"live page: followed the session to its end, $lint intervals as in the database"
[ "$lint" -gt "$i1" ]
ok $? "live page: picked up new intervals ($i1 while blocked, $lint at the end)"
dom=$(cat "$tmp/live3.dom")
has "$dom" "<span class=\"muted\">instructions </span><b>$(group "$lins")</b>" \
	"live page: the final instruction count ($lins) as in the database"
has "$dom" '<span class="state exited">exited</span>' "live page: the state says exited"
has "$s3" '"errors":[]' "live page: no script error"
is "$(console live)" "" "live page: no console error or warning"

# The session list follows sessions live.  With the list open (every
# session ended: it polls every 10 s), the test starts a second cat on a
# FIFO: its micactl run waits on a gate FIFO the driver opens.  The list
# shows it running; then the test closes the FIFO (cat reads no byte)
# and the list shows it exited.  The page is not reloaded: its count of
# lists shown goes on from the first.
mkfifo "$tmp/gate" "$tmp/fifo2"
(read -r go <"$tmp/gate" && exec "$MICACTL" run --no-spawn --interval 5000 -- /bin/cat \
	<"$tmp/fifo2" >"$tmp/cat2.out" 2>"$tmp/cat2.err") &
catpid=$!
sleep 100000 >"$tmp/fifo2" &
holder=$!
drive list "go:$base/?token=$tok" "wait:$(st "s.page === 'index' && s.total === 2")" \
	"eval:$tmp/list1.status=$status_js" \
	"run:echo go >'$tmp/gate'" \
	"wait:$(st "s.total === 3 && s.rows[0].state === 'running'")" \
	"eval:$tmp/list2.status=$status_js" "dom:$tmp/list2.dom" "shot:$art/daemon-index-running.png" \
	"run:kill $holder" \
	"wait:$(st "s.total === 3 && s.rows[0].state !== 'running'")" \
	"eval:$tmp/list3.status=$status_js" "dom:$tmp/list3.dom" "shot:$art/daemon-index-ended.png"
# If the driver stopped early, micactl may still wait on the gate or cat
# on its FIFO: end both so that the test goes on to report.
if [ ! -f "$tmp/list3.status" ]; then
	kill "$holder" "$catpid" 2>/dev/null
	: >"$tmp/list3.status"
fi
wait "$catpid"
is "$?" 0 "the second cat ended (exit status 0) when its FIFO closed"
catpid=
holder=
l1=$(cat "$tmp/list1.status")
l2=$(cat "$tmp/list2.status")
l3=$(cat "$tmp/list3.status")
sid2=$(sed -n 's/^micactl: session \([0-9]*\), pid .*/\1/p' "$tmp/cat2.err" | head -n 1)
[ -n "$sid2" ] && [ "$sid2" -gt "$lid" ]
ok $? "micactl run: the second cat is session $sid2"
has "$l1" "\"total\":2,\"loads\":1,\"rows\":[{\"id\":$lid,\"state\":\"exited\"},{\"id\":$sid,\"state\":\"exited\"}]" \
	"session list: at first the two ended sessions"
has "$l2" "\"total\":3," "session list: picked up the new session"
has "$l2" "\"rows\":[{\"id\":$sid2,\"state\":\"running\"},{\"id\":$lid,\"state\":\"exited\"}," \
	"session list: session $sid2 first, running"
has "$(cat "$tmp/list2.dom")" "<a href=\"session.html#session=$sid2\">$sid2</a></td><td class=\"cmd\" title=\"/bin/cat\">/bin/cat</td><td class=\"narrow-hide\">run</td>" \
	"session list: its link and command"
has "$(cat "$tmp/list2.dom")" '<span class="state running">running</span>' "session list: the state says running"
has "$l3" "\"rows\":[{\"id\":$sid2,\"state\":\"exited\"}," "session list: then session $sid2 exited"
is "$(sq "SELECT end_reason || ' ' || exit_status FROM session WHERE id = $sid2")" "exited 0" \
	"the database: session $sid2 exited with status 0"
n1=$(echo "$l2" | sed -n 's/.*"loads":\([0-9]*\).*/\1/p')
n2=$(echo "$l3" | sed -n 's/.*"loads":\([0-9]*\).*/\1/p')
[ "$n1" -ge 2 ] && [ "$n2" -gt "$n1" ]
ok $? "session list: updated in place, no reload (lists shown: 1, $n1, $n2)"
ins2=$(sq "SELECT coalesce(sum(ins), 0) FROM interval WHERE session_id = $sid2")
has "$(cat "$tmp/list3.dom")" "<span class=\"state exited\">exited</span>" "session list: exited badge"
[ "$ins2" -gt 0 ] && [ "$ins2" -lt 1000000 ]
ok $? "the second session: $ins2 instructions (bounded: cat read nothing)"
has "$(cat "$tmp/list3.dom")" "<td class=\"num\">$(group "$ins2")</td></tr>" \
	"session list: its instructions ($ins2) as in the database"
is "$(console list)" "" "session list (live): no console error or warning"
has "$l3" '"errors":[]' "session list (live): no script error"

log=$(cat "$tmp/server.err")
hasnt "$log" "Sanitizer" "no sanitizer report from the daemon"
hasnt "$log" "runtime error" "no undefined behaviour reported by the daemon"
done_testing
