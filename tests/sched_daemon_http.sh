#!/bin/sh
# GET /api/sessions/{id}/sched (daemon/http/http_sched.c) on a database that
# 'micad run' wrote for tests/asm/loop.S (304 instructions, intervals of
# 200): the rows are the database's, paginated, filtered by tid and
# index range, with the hot blocks' reports as JSON.
. "$top_srcdir/tests/http_lib.sh"

command -v sqlite3 >/dev/null 2>&1 || skip_all "no sqlite3 command-line tool"
db=$tmp/results.db
"$top_builddir/micad" run -q --mcpu skylake --interval 200 --db "$db" -o /dev/null \
	-- "$top_builddir/tests/asm/loop" 2>"$tmp/run.err" || {
	echo "Bail out! micad run failed: $(cat "$tmp/run.err")"
	exit 1
}
# The session belongs to whoever ran micad: ask with that uid's token.
start_server
if [ "$(id -u)" = 0 ]; then t=$rtok; else t=$tok; fi
sq() { sqlite3 "$db" "$1"; }

getraw /api/sessions/1/sched -H "Authorization: Bearer $t"
if [ "$(id -u)" != 0 ] && [ "$(id -u)" != 1000 ]; then
	is "$code" 404 "a session of another uid is not shown"
	done_testing
fi
is "$code" 200 "GET /api/sessions/1/sched"
c0=$(sq "SELECT cycles FROM sched_interval WHERE idx = 0")
i0=$(sq "SELECT instructions FROM sched_interval WHERE idx = 0")
has "$body" '"session":1,"cpu":"skylake","offset":0,"limit":100,' "the model's CPU and the page"
has "$body" "\"index\":0,\"final\":false,\"instructions\":$i0,\"cycles\":$c0,\"ipc\":" \
	"interval 0: instructions and cycles as stored"
p0=$(sq "SELECT uops FROM sched_port WHERE idx = 0 AND port = 'SKLPort0'")
has "$body" "\"ports\":{\"SKLPort0\":{\"uops\":$p0,\"pressure\":" "per-port uops"
has "$body" '"index":1,"final":true,' "interval 1 is the final one"
has "$body" '"next_offset":null,' "one page"
addr=$(sq "SELECT printf('0x%x', address) FROM sched_hot_block WHERE rank = 1")
has "$body" "\"hot_blocks\":[{\"rank\":1,\"address\":\"$addr\"," "the hottest block first"
has "$body" '"instructions":3,"executions":99,"function":null,"report":{"cpu": "skylake"' \
	"its report embedded as JSON"

getraw "/api/sessions/1/sched?limit=1" -H "Authorization: Bearer $t"
has "$body" '"next_offset":1,' "limit=1: a next page"
getraw "/api/sessions/1/sched?from=1&to=1" -H "Authorization: Bearer $t"
has "$body" '"intervals":[{"tid":' "from=1&to=1: one row"
hasnt "$body" '"index":0,' "from=1&to=1: not interval 0"
getraw "/api/sessions/1/sched?tid=1" -H "Authorization: Bearer $t"
has "$body" '"intervals":[],' "tid=1: no rows"
getraw "/api/sessions/1/sched?from=2&to=1" -H "Authorization: Bearer $t"
is "$code" 400 "from after to: 400"
get /api
has "$body" '"/api/sessions/{id}/sched"' "/api lists the endpoint"
stop_server
done_testing
