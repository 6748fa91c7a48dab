#!/bin/sh
# The profile API on the profile fixture (tests/profile_fixture.c lists its
# stacks, threads and intervals): the flame graph's tree exactly, its
# pruning, the filters (thread, intervals, time, weight), the hot-function
# table, the sample rate per thread, escaping, and the errors.
. "$top_srcdir/tests/http_lib.sh"

db=$tmp/profile.db
"$top_builddir/tests/profile_fixture" "$db" || {
	echo "Bail out! profile_fixture failed"
	exit 1
}
start_server

# The "sampling" object every answer starts with.
SAMPLING='"sampling":{"engine":"sample","event":"cpu-clock","note":"no hardware PMU here (perf_event_open of PERF_TYPE_HARDWARE: ENOENT); sampled cpu-clock at 999 Hz, bursts by ptrace","weighting":"time","weight_unit":"nanoseconds"}'
BOX='"Box\u003cint\u0026, \"s\"\u003e::operator\u003c(Box const\u0026) const"'

get /api
has "$body" '"/api/sessions/{id}/profile","/api/sessions/{id}/profile/functions","/api/sessions/{id}/profile/rate"' \
	"/api lists the profile endpoints"

get /api/sessions/1
has "$body" '"engine":"sample","sample_event":"cpu-clock","sample_note":"no hardware PMU here (perf_event_open of PERF_TYPE_HARDWARE: ENOENT); sampled cpu-clock at 999 Hz, bursts by ptrace","weighting":"time"' \
	"session detail: the engine, the event in effect, the note and the weighting"
get /api/sessions/3
has "$body" '"engine":"step","sample_event":null,"sample_note":null,"weighting":null' \
	"session detail of a step-mode session: engine step, no sampling fields"

# ---- the tree ----
get /api/sessions/1/profile
is "$code" 200 "GET profile"
is "$body" '{"session":1,'"$SAMPLING"',"tid":null,"from":0,"to":null,"since":null,"until":null,"value":"samples","samples":1000,"weight":1001001000,"lost":3,"intervals":6,"pruning":{"min_share":0.001,"max_nodes":5000,"nodes":13,"kept":13,"pruned":0,"pruned_value":0,"note":"nothing pruned"},"tree":{"name":"all","module":null,"self":0,"total":1000,"children":[{"name":"_start","module":"/usr/bin/prof","self":0,"total":1000,"children":[{"name":"main","module":"/usr/bin/prof","self":10,"total":1000,"children":[{"name":'"$BOX"',"module":"/usr/lib/x86_64-linux-gnu/libbox.so.1","self":100,"total":100,"children":[]},{"name":"compute","module":"/usr/bin/prof","self":0,"total":550,"children":[{"name":"hot","module":"/usr/bin/prof","self":550,"total":550,"children":[]}]},{"name":"fib","module":"/usr/bin/prof","self":0,"total":100,"children":[{"name":"fib","module":"/usr/bin/prof","self":0,"total":100,"children":[{"name":"fib","module":"/usr/bin/prof","self":100,"total":100,"children":[]}]}]},{"name":"libfoo.so+0x1a2b","module":"/usr/lib/libfoo.so","self":0,"total":40,"children":[{"name":"[unknown]","module":"[unknown]","self":40,"total":40,"children":[]}]},{"name":"other","module":"/usr/bin/prof","self":0,"total":200,"children":[{"name":"hot","module":"/usr/bin/prof","self":200,"total":200,"children":[]}]}]}]}]}}' \
	"profile: the whole tree (functions merged across offsets, siblings by name, recursion one node per level, 3 lost samples, 6 intervals)"

get "/api/sessions/1/profile?min_share=0.05"
has "$body" '"pruning":{"min_share":0.05,"max_nodes":5000,"nodes":13,"kept":11,"pruned":2,"pruned_value":40,"note":"11 of 13 nodes shown: the heaviest, none below the min_share of the total, at most max_nodes; a pruned node'"'"'s value stays in its parent'"'"'s total"}' \
	"min_share=0.05: libfoo.so+0x1a2b and [unknown] (40 samples) pruned, and the answer says so"
hasnt "$body" 'libfoo' "min_share=0.05: the pruned node is not in the tree"
has "$body" '{"name":"main","module":"/usr/bin/prof","self":10,"total":1000,' \
	"min_share=0.05: the pruned samples stay in main's total"

get "/api/sessions/1/profile?max_nodes=4"
has "$body" '"kept":4,"pruned":9,"pruned_value":990,' "max_nodes=4: the 4 heaviest kept; 990 samples in pruned subtrees (hot's 550 under compute, 440 under main)"
has "$body" '{"name":"main","module":"/usr/bin/prof","self":10,"total":1000,"children":[{"name":"compute","module":"/usr/bin/prof","self":0,"total":550,"children":[]}]}' \
	"max_nodes=4: all, _start, main, compute"

get "/api/sessions/1/profile?value=weight&min_share=0.5"
has "$body" '"value":"weight",' "value=weight: said so"
has "$body" '{"name":"compute","module":"/usr/bin/prof","self":0,"total":550550550,"children":[{"name":"hot","module":"/usr/bin/prof","self":550550550,"total":550550550,"children":[]}]}' \
	"value=weight: nanoseconds of cpu-clock (550 x 1001001)"

get "/api/sessions/1/profile?tid=501&min_share=0.2"
has "$body" '"tid":501,' "tid=501: the filter is echoed"
has "$body" '"samples":340,"weight":340340340,"lost":0,"intervals":2,' "tid=501: 340 samples in 2 intervals"
has "$body" '{"name":"main","module":"/usr/bin/prof","self":5,"total":340,"children":[{"name":'"$BOX"',"module":"/usr/lib/x86_64-linux-gnu/libbox.so.1","self":80,"total":80,"children":[]},{"name":"compute","module":"/usr/bin/prof","self":0,"total":100,"children":[{"name":"hot","module":"/usr/bin/prof","self":100,"total":100,"children":[]}]},{"name":"other","module":"/usr/bin/prof","self":0,"total":100,"children":[{"name":"hot","module":"/usr/bin/prof","self":100,"total":100,"children":[]}]}]}' \
	"tid=501: that thread's tree"

get "/api/sessions/1/profile?from=2&to=3&tid=500"
has "$body" '"from":2,"to":3,' "from/to: echoed"
has "$body" '"samples":245,"weight":245245245,"lost":3,"intervals":2,' \
	"from=2&to=3&tid=500: 185 + 60 samples, interval 2's 3 lost"

get "/api/sessions/1/profile?since=1700000101&until=1700000102"
has "$body" '"since":1700000101,"until":1700000102,' "since/until: echoed"
has "$body" '"samples":620,"weight":620620620,"lost":0,"intervals":3,' \
	"since/until: the intervals overlapping [101, 102): 500/1, 501/0 and 501/1"

# A stack 201 frames deep: nested 202 levels (the root too), written
# whole (the JSON writer's own nesting bookkeeping stops at 32 levels).
get "/api/sessions/4/profile"
deep=$(printf '%s' "$body" | python3 -c '
import json, sys
n = json.load(sys.stdin)["tree"]
names = []
while True:
	names.append(n["name"])
	if not n["children"]:
		break
	assert len(n["children"]) == 1 and n["total"] == 7
	n = n["children"][0]
print(len(names), names[1], names[2], names[-1], n["self"])' 2>&1)
is "$deep" "202 _start rec rec 7" "a 201-frame stack: valid JSON, 202 levels down to rec's 7 samples"
get "/api/sessions/4/profile/functions"
has "$body" '"functions":[{"name":"rec","module":"/usr/bin/deep","self":7,"total":7,"self_share":1,"total_share":1},' \
	"200 levels of recursion: rec's total counts each sample once"

# ---- hot functions ----
get "/api/sessions/1/profile/functions"
is "$code" 200 "GET profile/functions"
has "$body" '"functions_total":9,"offset":0,"limit":100,"functions":[{"name":"hot","module":"/usr/bin/prof","self":750,"total":750,"self_share":0.75,"total_share":0.75},{"name":'"$BOX"',"module":"/usr/lib/x86_64-linux-gnu/libbox.so.1","self":100,"total":100,"self_share":0.1,"total_share":0.1},{"name":"fib","module":"/usr/bin/prof","self":100,"total":100,"self_share":0.1,"total_share":0.1},{"name":"[unknown]","module":"[unknown]","self":40,"total":40,"self_share":0.04,"total_share":0.04},{"name":"main","module":"/usr/bin/prof","self":10,"total":1000,"self_share":0.01,"total_share":1},{"name":"_start","module":"/usr/bin/prof","self":0,"total":1000,"self_share":0,"total_share":1},{"name":"compute","module":"/usr/bin/prof","self":0,"total":550,"self_share":0,"total_share":0.55},{"name":"other","module":"/usr/bin/prof","self":0,"total":200,"self_share":0,"total_share":0.2},{"name":"libfoo.so+0x1a2b","module":"/usr/lib/libfoo.so","self":0,"total":40,"self_share":0,"total_share":0.04}],"next_offset":null}' \
	"functions: by self share (hot 75%), total once per stack (fib's recursion 10%, main 100%)"
get "/api/sessions/1/profile/functions?limit=2&offset=2"
has "$body" '"offset":2,"limit":2,"functions":[{"name":"fib",' "functions: paging (offset 2)"
has "$body" '{"name":"[unknown]",' "functions: paging (second of the page)"
has "$body" '"next_offset":4}' "functions: next_offset"
get "/api/sessions/1/profile/functions?tid=501&from=1&to=1&limit=1"
has "$body" '"functions":[{"name":"hot","module":"/usr/bin/prof","self":100,"total":100,"self_share":0.6896551724137931,"total_share":0.6896551724137931}]' \
	"functions of 501/1: hot 100 of 145"
get "/api/sessions/1/profile/functions?value=weight&limit=1"
has "$body" '"functions":[{"name":"hot","module":"/usr/bin/prof","self":750750750,"total":750750750,"self_share":0.75,"total_share":0.75}]' \
	"functions, value=weight: nanoseconds"

# ---- sample rate ----
get "/api/sessions/1/profile/rate"
is "$code" 200 "GET profile/rate"
has "$body" '"limit":10000,"threads":[{"tid":500,"interval":[0,1,2,3],"started_at":[1700000100,1700000101,1700000102,1700000103],"ended_at":[1700000101,1700000102,1700000103,1700000104],"samples":[135,280,185,60],"lost":[0,0,3,0],"rate":[135,280,185,60]},{"tid":501,"interval":[0,1],"started_at":[1700000100.5,1700000101.5],"ended_at":[1700000101.5,1700000102.5],"samples":[195,145],"lost":[0,0],"rate":[195,145]}],"truncated":false}' \
	"rate: per thread, per interval: times, samples, lost, samples per second"
get "/api/sessions/1/profile/rate?tid=500&from=1&to=2"
has "$body" '"threads":[{"tid":500,"interval":[1,2],' "rate: tid and interval range"
get "/api/sessions/1/profile/rate?limit=1"
has "$body" '{"tid":501,"interval":[0],' "rate: limit per thread"
has "$body" '"truncated":true}' "rate: truncation said"

# ---- errors, isolation ----
get /api/sessions/3/profile
is "$code" 404 "a step-mode session has no profile: 404"
has "$body" "session 3 was not sampled (engine 'step'): it has no profile" "... and says why"
get /api/sessions/2/profile
is "$code" 404 "root's session: 404 for uid 1000"
getraw /api/sessions/2/profile/functions -H "Authorization: Bearer $rtok"
has "$body" '"functions":[{"name":"_start","module":"/usr/sbin/rootd","self":1,' "root sees its own profile"
getraw /api/sessions/1/profile
is "$code" 401 "no token: 401"
get "/api/sessions/1/profile?from=3&to=1"
is "$code" 400 "from after to: 400"
get "/api/sessions/1/profile?since=5&until=5"
is "$code" 400 "since not before until: 400"
get "/api/sessions/1/profile?since=1e400"
is "$code" 400 "since out of range: 400"
get "/api/sessions/1/profile?min_share=-0.1"
is "$code" 400 "negative min_share: 400"
get "/api/sessions/1/profile?max_nodes=0"
is "$code" 400 "max_nodes=0: 400"
get "/api/sessions/1/profile?value=cycles"
has "$code $body" '400 {"error":{"status":400,"message":"parameter value: want samples or weight"}}' "value=cycles: 400 with the choices"
get "/api/sessions/1/profile/flame"
is "$code" 404 "an unknown profile endpoint: 404"

# Hot blocks named after the function they are in (the profile's frames:
# the nearest symbol start at or below the address).
get "/api/sessions/1/sched"
has "$body" '"rank":1,"address":"0x40130c","end_address":"0x401316","instructions":4,"executions":1000,"function":{"module":"/usr/bin/prof","symbol":"hot","offset":12}' \
	"hot block 1: hot+12"
has "$body" '"rank":2,"address":"0x40120d","end_address":"0x401212","instructions":2,"executions":10,"function":{"module":"/usr/bin/prof","symbol":"compute","offset":13}' \
	"hot block 2: compute+13"
has "$body" '"rank":3,"address":"0x1000","end_address":"0x1004","instructions":2,"executions":5,"function":null' \
	"hot block 3: below every known symbol, no function"
stop_server
done_testing
