#!/bin/sh
# The JSON API and /metrics on the fixture database (tests/http_fixture.c
# says how each raw count was chosen): every endpoint, with values checked
# by hand, and the derived values cross-checked against schema.sql's views
# through the sqlite3 command-line tool.
. "$top_srcdir/tests/http_lib.sh"

make_fixture
start_server --live 3

# ---- index, sessions ----
get /api
is "$code" 200 "GET /api"
has "$body" '"uid":1000' "/api says who is asking (uid of the token)"
has "$body" '"views":["ilp_per_window",' "/api lists the views"

get /api/sessions
is "$code" 200 "GET /api/sessions"
has "$body" '"total":2,' "uid 1000 sees its 2 sessions, not root's"
hasnt "$body" 'root-daemon' "root's session is not listed for uid 1000"
has "$body" '"sessions":[{"id":3,' "newest first"
has "$body" '"command":"./prog \"a b\" \u003cx\u003e \u0026 '"'"'y'"'"' \\ é"' \
	"command line escaped in JSON (quotes, <, >, &, backslash; UTF-8 kept)"
has "$body" '"threads":2,"intervals":4,"instructions":6500,"error":null,"running":false}' \
	"session 1: 2 threads, 4 intervals, 1000+2000+3000+500 instructions"
has "$body" '"live":{"state":"running","instructions":123456,"intervals":2,"mgsim":true}' \
	"a running session carries its live progress"
is "$(header Cache-Control)" "no-store" "API responses: Cache-Control: no-store"
is "$(header Content-Security-Policy)" "default-src 'self'; frame-ancestors 'none'" \
	"API responses: Content-Security-Policy"
is "$(header X-Content-Type-Options)" "nosniff" "API responses: nosniff"
is "$(header Content-Type)" "application/json" "API responses are JSON"

get "/api/sessions?limit=1"
has "$body" '"limit":1,' "pagination: limit"
has "$body" '"next_offset":1}' "pagination: next_offset"
get "/api/sessions?limit=1&offset=1"
has "$body" '"sessions":[{"id":1,' "pagination: offset 1 gives the older session"
has "$body" '"next_offset":null}' "pagination: last page"
get "/api/sessions?state=running"
has "$body" '"total":1,' "state=running: session 3 only"

getraw /api/sessions -H "Authorization: Bearer $rtok"
has "$body" '"total":3,' "root sees every session"

get /api/sessions/1
is "$code" 200 "GET /api/sessions/1"
has "$body" '"started_at":1700000001.5,"ended_at":1700000100.25,"exit_status":0,"end_reason":"exited"' \
	"session detail: times and end"
has "$body" '"config":"analysis_type: all\ninterval_size: 1000\n"' "session detail: config text"
has "$body" '"itypes_groups":["mem_read","mem_write","other"]' "session detail: itypes groups"
has "$body" '"analyses":["ilp","itypes","ppm","reg","stride","memfootprint","memstackdist"]' \
	"session detail: analyses present"

get /api/sessions/1/threads
is "$body" '{"session":1,"threads":[{"tid":100,"pid":100,"intervals":3,"instructions":6000,"first_interval":0,"last_interval":2},{"tid":101,"pid":101,"intervals":1,"instructions":500,"first_interval":0,"last_interval":0}]}' \
	"threads: counts, instructions, interval range"

# ---- intervals: raw counts and derived metrics (interval 1 of thread 100: n = 2) ----
get "/api/sessions/1/intervals?tid=100&from=1&to=1"
is "$code" 200 "GET intervals"
has "$body" '"tid":100,"index":1,"full":false,"final":false,"ins":2000,"ins_aligned":1990' "interval: E and H"
has "$body" '{"analysis":"ilp","window":64,"cycles":500,"ilp":4}' "ilp window 64: 2000 / 500 = 4"
has "$body" '{"analysis":"ilp","window":256,"cycles":125,"ilp":16}' "ilp window 256: 2000 / 125 = 16"
has "$body" '{"group":1,"name":"mem_write","count":200,"fraction":0.1}' "itypes: 200 / 2000"
has "$body" '{"group":2,"name":"other","count":1200,"fraction":0.6}' "itypes: catch-all 'other'"
has "$body" '"ppm":{"branches":400,"transitions":100,"taken":200,"transition_rate":0.25,"taken_rate":0.5' \
	"ppm: branch counts and rates"
has "$body" '{"organization":"GAg","history":4,"misses":40,"rate":0.1,"mpki":20}' \
	"ppm GAg/4: 40 / 400 = 0.1, 1000 x 40 / 2000 = 20 MPKI"
has "$body" '{"organization":"PAs","history":12,"misses":4,"rate":0.01,"mpki":2}' "ppm PAs/12"
has "$body" '"reg":{"operands":4000,"values":200,"uses":600,"reads":800,"age_le":{"1":200,"2":400,"4":800' \
	"reg: raw counts"
has "$body" '"avg_operands":2,"avg_degree_of_use":3,"dependency_distance_cdf":{"1":0.25,"2":0.5,"4":1' \
	"reg: 4000/2000 operands, 600/200 uses, CDF 200/800, 400/800"
has "$body" '"stride":{"reads":160,"writes":80,"kinds":{"local_read":[{"le":0,"count":40,"probability":0.25},{"le":8,"count":40,"probability":0.25},{"le":64,"count":160,"probability":1}' \
	"stride: local reads 40/160 up to 8 bytes, then all"
has "$body" '"global_read":[{"le":0,"count":80,"probability":0.5}' "stride: global reads 80/160"
has "$body" '"memfootprint":{"data_blocks":20,"data_pages":4,"insn_blocks":3,"insn_pages":1,"block_size":6,"page_size":12,"data_block_bytes":1280,"data_page_bytes":16384,"insn_block_bytes":192,"insn_page_bytes":4096}' \
	"memfootprint: 20 x 64 B, 4 x 4 KiB, 3 x 64 B, 1 page"
has "$body" '"memstackdist":{"refs":200,"cold":100,"cold_fraction":0.5,"buckets":[{"bucket":0,"lo":0,"hi":2,"count":40,"fraction":0.2,"cdf":0.2},{"bucket":1,"lo":2,"hi":4,"count":40,"fraction":0.2,"cdf":0.4},{"bucket":2,"lo":4,"hi":8,"count":20,"fraction":0.1,"cdf":0.5}' \
	"memstackdist: 40/200, cumulative 0.4, 0.5"
has "$body" '"next_offset":null}' "one interval in range"

get "/api/sessions/1/intervals?analysis=ilp&limit=2"
has "$body" '"limit":2,' "intervals: limit"
has "$body" '"next_offset":2}' "intervals: 4 in all, next page at 2"
hasnt "$body" '"itypes"' "analysis=ilp leaves the other analyses out"
get "/api/sessions/1/intervals?analysis=ilp&limit=2&offset=2"
has "$body" '"tid":101,"index":0,' "intervals: second page reaches thread 101"
has "$body" '{"analysis":"ilp","window":32,"cycles":1000,"ilp":0.5}' "thread 101: 500 / 1000"

# The derived values agree with schema.sql's views.
if command -v sqlite3 >/dev/null 2>&1; then
	is "$(sqlite3 "$db" "SELECT ilp FROM ilp_per_window WHERE tid = 100 AND interval = 1 AND window = 256")" \
		16.0 "ilp_per_window view agrees (16)"
	is "$(sqlite3 "$db" "SELECT avg_degree_of_use FROM register_traffic WHERE tid = 100 AND interval = 1")" \
		3.0 "register_traffic view agrees (3)"
	is "$(sqlite3 "$db" "SELECT cdf FROM reuse_distance WHERE tid = 100 AND interval = 1 AND bucket = 1")" \
		0.4 "reuse_distance view agrees (0.4)"
else
	for i in 1 2 3; do
		n_test=$((n_test + 1))
		echo "ok $n_test - # SKIP sqlite3 CLI not installed"
	done
fi

# ---- metric names, series, views ----
get /api/sessions/1/metrics
has "$body" '"ilp_256",' "metric names include ilp_256"
has "$body" '"mix_mem_read",' "metric names include mix_mem_read"
get "/api/sessions/1/series?metric=ilp_256"
is "$body" '{"session":1,"metric":"ilp_256","sampled":false,"level":null,"threads":[{"tid":100,"interval":[0,1,2],"value":[8,16,24],"ci_low":null,"ci_high":null,"n_bursts":null,"estimable":null},{"tid":101,"interval":[0],"value":[4],"ci_low":null,"ci_high":null,"n_bursts":null,"estimable":null}],"points":4}' \
	"series: ilp_256 per thread, column-oriented (a step-mode session: no estimates)"
get "/api/sessions/1/series?metric=mispredict_GAg_4&tid=100&from=2"
is "$body" '{"session":1,"metric":"mispredict_GAg_4","sampled":false,"level":null,"threads":[{"tid":100,"interval":[2],"value":[0.1],"ci_low":null,"ci_high":null,"n_bursts":null,"estimable":null}],"points":1}' \
	"series: tid and from filter"
# Each family the server reads in one query, and two it reads interval by
# interval, against the metric view.
if command -v sqlite3 >/dev/null 2>&1; then
	for m in ilp_64 mix_mem_write mix_other mispredict_PAs_12 mpki_GAg_4 taken_rate transition_rate \
		avg_register_operands avg_degree_of_use data_footprint_bytes data_footprint_page_bytes \
		insn_footprint_bytes insn_footprint_page_bytes reuse_cold stride_local_read_le_8 reuse_cdf_1; do
		get "/api/sessions/1/series?metric=$m"
		got=$(printf '%s' "$body" | sed 's/"tid"/\n/g' | sed -n 's/^:\([0-9]*\),"interval":\[\([^]]*\)\],"value":\[\([^]]*\)\].*/\1 \2 \3/p' |
			awk '{ n = split($2, x, ","); split($3, v, ","); for (i = 1; i <= n; i++) printf "%s %s %.12g\n", $1, x[i], v[i] }')
		want=$(sqlite3 -separator ' ' "$db" "SELECT tid, interval, value FROM metric WHERE session_id = 1
			AND metric = '$m' ORDER BY tid, interval" | awk '{ printf "%s %s %.12g\n", $1, $2, $3 }')
		is "$got" "$want" "series of $m: the metric view's values"
	done
else
	for i in $(seq 16); do
		n_test=$((n_test + 1))
		echo "ok $n_test - # SKIP sqlite3 CLI not installed"
	done
fi
get "/api/sessions/1/series?metric=no_such_metric"
is "$code" 404 "series of an unknown metric: 404"
get "/api/sessions/1/series"
is "$code" 400 "series without metric: 400"

get "/api/sessions/1/views/ilp_per_window?tid=100&to=0"
is "$body" '{"session":1,"view":"ilp_per_window","columns":["session_id","tid","interval","analysis","window","ins","cycles","ilp"],"rows":[[1,100,0,"ilp",32,1000,1000,1],[1,100,0,"ilp",64,1000,500,2],[1,100,0,"ilp",128,1000,250,4],[1,100,0,"ilp",256,1000,125,8]],"offset":0,"limit":10000,"next_offset":null}' \
	"view rows as JSON"
get "/api/sessions/1/views/instruction_mix?tid=100&to=0&format=csv"
is "$body" "session_id,tid,interval,grp,grp_name,count,ins,fraction
1,100,0,0,mem_read,300,1000,0.3
1,100,0,1,mem_write,100,1000,0.1
1,100,0,2,other,600,1000,0.6" "view rows as CSV"
is "$(header Content-Type)" "text/csv; charset=utf-8" "CSV content type"
has "$(header Content-Disposition)" 'filename="micad-session-1-instruction_mix.csv"' "CSV is a download"
get "/api/sessions/1/views/reuse_distance?limit=2"
has "$body" '"next_offset":2}' "view pagination"
get "/api/sessions/1/views/reuse_distance?limit=0"
has "$body" '"rows":[],"offset":0,"limit":0,"next_offset":null}' \
	"limit=0: no rows and next_offset null, not 0 (a pager would loop)"
get "/api/sessions?limit=0"
has "$body" '"sessions":[],"next_offset":null}' "session list, limit=0: next_offset null"
get "/api/sessions/1/intervals?limit=0"
has "$body" '"intervals":[],"next_offset":null}' "intervals, limit=0: next_offset null"
get "/api/sessions/1/mgsim/intervals?limit=0"
has "$body" '"intervals":[],"next_offset":null}' "mgsim intervals, limit=0: next_offset null"
get "/api/sessions/1/sched?limit=0"
has "$body" '"intervals":[],"next_offset":null' "sched, limit=0: next_offset null"
get "/api/sessions/1/views/reuse_distance?limit=100000000"
is "$code" 400 "a view page has at most 100,000 rows"
get "/api/sessions/1/views/instruction_mix?tid=100&format=csv&limit=2"
is "$(header Link)" '<?offset=2>; rel="next"' "a CSV page says where the next one starts (Link rel=next)"
get "/api/sessions/1"
has "$body" '"settings":{"interval_size":1000},' "settings: a JSON object, not a string"
# The views the server spells out (filtered before their window function
# or cross join, metric interval by interval) give the views' rows.
if command -v sqlite3 >/dev/null 2>&1; then
	for v in "reuse_distance bucket" "dependency_distance_cdf distance" "metric metric"; do
		set -- $v
		want=$(sqlite3 -json "$db" "SELECT * FROM $1 WHERE session_id = 1 ORDER BY tid, interval, $2" |
			tr -d '\n ' | sed 's/{[^}]*}/X/g')
		get "/api/sessions/1/views/$1?limit=100000"
		rows=$(printf '%s' "$body" | sed 's/.*"rows":\(\[.*\]\),"offset".*/\1/')
		n_want=$(sqlite3 "$db" "SELECT count(*) FROM $1 WHERE session_id = 1")
		n_got=$(printf '%s' "$rows" | grep -o '\],\[' | wc -l)
		is "$((n_got + 1))" "$n_want" "views/$1: as many rows as the view ($n_want)"
		sqlite3 -separator ' ' "$db" "SELECT * FROM $1 WHERE session_id = 1 ORDER BY tid, interval, $2" |
			awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^-?[0-9.]+$/) $i = $i + 0; print }' >"$tmp/v.txt"
		printf '%s' "$rows" | sed -e 's/^\[\[//' -e 's/\]\]$//' -e 's/\],\[/\n/g' |
			tr ',' ' ' | tr -d '"' | sed 's/null//g' |
			awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^-?[0-9.e+-]+$/) $i = $i + 0; print }' >"$tmp/a.txt"
		is "$(diff "$tmp/v.txt" "$tmp/a.txt" | head -5)" "" "views/$1: the view's rows, value for value"
	done
else
	for i in 1 2 3 4 5 6; do
		n_test=$((n_test + 1))
		echo "ok $n_test - # SKIP sqlite3 CLI not installed"
	done
fi
get "/api/sessions/1/views/reuse_distance_session?tid=100&format=csv"
is "$(printf '%s\n' "$body" | head -n 6)" "session_id,tid,bucket,lo,hi,count,refs,fraction,cdf
1,100,0,0,2,120,600,0.2,0.2
1,100,1,2,4,120,600,0.2,0.4
1,100,2,4,8,60,600,0.1,0.5
1,100,3,8,16,0,600,0,0.5
1,100,4,16,32,0,600,0,0.5" "reuse_distance_session: the thread's buckets summed over its intervals (first 5 rows)"
get "/api/sessions/1/views/session"
is "$code" 404 "only the listed views: 404 for a table name"

# ---- MGSim view (fixture: thread 100, snapshots at its start and 3 interval ends) ----
get /api/sessions/1/mgsim
is "$code" 200 "GET mgsim"
has "$body" '"num_counters":21,"word_size":8,"base":8,"mapped":true' "mgsim discovery: 21 counters, base 8"
has "$body" '"num_perfcounters":{"index":4,"addr":1056,"value":21}' "ASR 4 at 0x420 = 21"
has "$body" '"perfcounters_base":{"index":5,"addr":1064,"value":8}' "ASR 5 at 0x428 = base"
has "$body" '{"index":20,"name":"core_clocks","macro":"CORE_CYCLES","addr":168,' "counter 20 at 8 + 20 x 8"
has "$body" '"thread_entries":256,"family_entries":32' "model settings from mgsim_config"

get "/api/sessions/1/mgsim/intervals?tid=100"
has "$body" '"index":0,"final":false,"taken_at":1700000010.000005,"seconds":10,"values":[2000,1000,' \
	"mgsim interval 0: cumulative values"
has "$body" '"delta":[3000,2000,20,30,40,50,60,70,80,null,3000,3000,0,null,null,null,160,170,0,0,3000]' \
	"mgsim interval 1: deltas (null for 9 and 13-15)"
has "$body" '"per_cycle":[1,0.75,' "mgsim interval 2: 3000 instructions / 4000 cycles"
has "$body" '"per_second":[400,300,' "mgsim interval 2: per second over 10 s"
has "$body" '"derived":{"pl_eff":0.75,"tt_occp":0.00390625,"ft_occp":0.03125,"xq_avg":0}' \
	"derived columns: pl_eff 3000/4000, tt_occp 4000/256/4000, ft_occp 1/32"
pl=$(sqlite3 "$db" "SELECT pl_eff FROM mgsim_delta WHERE tid = 100 AND interval = 2" 2>/dev/null)
is "$pl" 0.75 "mgsim_delta view agrees on pl_eff"

get "/api/sessions/1/mgsim/counters"
has "$body" '"source":"interval","snapshot":"100:2","at":1700000030.000005' "snapshot: the latest stored one"
has "$body" '"n_exec_insns":6000,' "snapshot: n_exec_insns"
# 2023-11-14 22:13:50 UTC: date 14 | 10 << 5 | 123 << 9; time 0 | 50 << 15 | 13 << 21 | 22 << 27
has "$body" '"notused2":1700000030,"notused3":63310,"notused4":2981691392,' \
	"snapshot: packed date and time of the stored clock reading"
get "/api/sessions/1/mgsim/counters?since=100:start"
has "$body" '"since":{"source":"interval","snapshot":"100:start"' "since: from the thread's start"
has "$body" '"derived":{"pl_eff":0.6666666666666666,' "since: pl_eff over the whole run, 6000/9000"
get "/api/sessions/1/mgsim/counters?since=100:0&at=100:1"
has "$body" '"delta":{"clocks":3000,"n_exec_insns":2000,' "since + at: one interval's delta"
get "/api/sessions/1/mgsim/counters?since=bad"
is "$code" 400 "since: malformed snapshot 400"
get "/api/sessions/1/mgsim/counters?since=100:7"
is "$code" 404 "since: unknown snapshot 404"

get /api/sessions/1/mgsim/counters/1
has "$body" '"index":1,"name":"n_exec_insns","unit":"instructions","value":6000,"word_le":"7017000000000000"}' \
	"counters/1: value and little-endian word"
get /api/sessions/1/mgsim/counters/core_clocks
has "$body" '"index":20,"name":"core_clocks"' "counters by name"
get /api/sessions/1/mgsim/counters/21
is "$code" 404 "counters/21: 404"

# MMIO decode rules (base 8, 8-byte words).
get "/api/sessions/1/mgsim/mmio?addr=0x10&size=8"
has "$body" '"index":1,"name":"n_exec_insns",' "mmio 0x10: counter (0x10 - 8) / 8 = 1"
has "$body" '"addr":"0x10","size":8}' "mmio: address echoed"
get "/api/sessions/1/mgsim/mmio?addr=168&size=8"
has "$body" '"index":20,' "mmio 168 (0xa8): the last counter"
get "/api/sessions/1/mgsim/mmio?addr=0xb0&size=8"
is "$code" 404 "mmio past the window (0xb0): 404"
get "/api/sessions/1/mgsim/mmio?addr=0&size=8"
is "$code" 404 "mmio below the base: 404"
get "/api/sessions/1/mgsim/mmio?addr=0xac&size=8"
is "$code" 404 "mmio straddling the window's end: 404"
get "/api/sessions/1/mgsim/mmio?addr=0x11&size=8"
is "$code" 400 "mmio misaligned: 400"
get "/api/sessions/1/mgsim/mmio?addr=0x10&size=4"
is "$code" 400 "mmio 4-byte read: 400"
get "/api/sessions/1/mgsim/mmio?addr=zz"
is "$code" 400 "mmio bad address: 400"
get "/api/sessions/1/mgsim/mmio?addr=0x10&size=8" -X PUT
is "$code" 405 "mmio write (PUT): 405"
is "$(header Allow)" "GET, HEAD" "405 says Allow: GET, HEAD"

# Monitoring variables: reads so far of session 1 = snapshots (1 + 20
# each): counters, since=start, since+at, = 3 (the 2 failed ones count
# nothing); single reads: counters/1 (other), core_clocks (other), mmio
# 0x10 (other), mmio 168 (other).
get /api/sessions/1/mgsim
has "$body" '"monitoring":{"nCycleSampleOps":3,"nOtherSampleOps":64}' \
	"nCycleSampleOps 3, nOtherSampleOps 3 x 20 + 4"

# Live snapshot (the test server reports session 3 as running: counter i
# = 1000 i + 7, counter 9 = 1, counters 13-15 from the server's clock).
get "/api/sessions/3/mgsim/counters?at=live"
has "$body" '"source":"live","snapshot":null' "live snapshot"
has "$body" '"n_exec_insns":1007,"n_issued_flops":2007,' "live counter values"
now=$(date -u +%s)
c13=$(printf '%s' "$body" | sed -n 's/.*"notused2":\([0-9]*\),.*/\1/p')
ok $([ -n "$c13" ] && [ $((now - c13)) -ge 0 ] && [ $((now - c13)) -le 5 ]; echo $?) \
	"live counter 13 is the host clock (got $c13, now $now)"
c14=$(printf '%s' "$body" | sed -n 's/.*"notused3":\([0-9]*\),.*/\1/p')
want14=$(( $(date -u -d "@$c13" +%-d) | ($(date -u -d "@$c13" +%-m) - 1) << 5 | ($(date -u -d "@$c13" +%Y) - 1900) << 9 ))
is "$c14" "$want14" "live counter 14 packs the same clock reading's UTC date"
get "/api/sessions/1/mgsim/counters?at=live"
is "$code" 404 "at=live for an ended session: 404"

# ---- /metrics ----
get /metrics
is "$code" 200 "GET /metrics"
is "$(header Content-Type)" "text/plain; version=0.0.4; charset=utf-8" "Prometheus text format"
has "$body" 'micad_session_running{session="3",mode="run",command="./live"} 1' "running session listed"
hasnt "$body" 'session="1"' "ended sessions are not listed by default"
has "$body" 'micad_session_instructions_total{session="3"} 123456' "live instruction count"
has "$body" 'micad_mgsim_executed_instructions_total{session="3"} 1007' \
	"live MGSim counter 1 as a counter named for what it counts"
has "$body" '# TYPE micad_mgsim_master_cycles_total counter' "MGSim cumulative counters are counters"
has "$body" 'micad_mgsim_place_cores{session="3"} 1' "MGSim counter 9 (a size) is a gauge"
is "$(printf '%s\n' "$body" | grep -c '^micad_mgsim_[a-z0-9_]*{session="3"}')" 19 \
	"19 MGSim metrics: the packed date and time words (14, 15) are not exported"
hasnt "$body" 'interval="' "no label takes an interval index (bounded series)"
hasnt "$body" 'index="' "no label takes a counter index"
has "$body" 'micad_interval_ilp{session="3",tid="300",analysis="ilp",window="256"} 16' \
	"latest interval's ILP as a gauge per session and thread (interval 1 of tid 300: 16)"
has "$body" 'micad_thread_latest_interval{session="3",tid="300"} 1' \
	"which interval the gauges describe"
has "$body" 'micad_thread_intervals_total{session="3",tid="300"} 2' "thread interval counter"
get "/metrics?session=1"
has "$body" 'micad_session_running{session="1",mode="run",command="./prog \"a b\" <x> & '"'"'y'"'"' \\ é"} 0' \
	"label values escaped (quote, backslash)"
has "$body" 'micad_interval_ilp{session="1",tid="101",analysis="ilp",window="32"} 0.5' \
	"?session=N: that session's latest intervals"
has "$body" 'micad_mgsim_executed_instructions_total{session="1"} 6000' \
	"an ended session: its latest stored MGSim snapshot"
has "$body" 'micad_session_instructions_total{session="1"} 6500' "ended session: stored instructions"
# The gauges of the latest interval (http_metric_pairs_sql, mapped to
# families and labels) equal the metric view's, name for name and value
# for value: each sample is turned back into the view's name.
if command -v sqlite3 >/dev/null 2>&1; then
	sqlite3 -separator ' ' "$db" "SELECT metric, coalesce(value, 'NaN') FROM metric WHERE
		session_id = 1 AND tid = 100 AND interval = 2" >"$tmp/view.txt"
	printf '%s\n' "$body" | grep '^micad_interval_.*tid="100"' |
		grep -v -e '^micad_interval_instructions{' -e '^micad_interval_simulated_ipc{' |
		sed -e 's/^micad_interval_ilp{[^}]*analysis="\([a-z_]*\)",window="\([0-9]*\)"}/\1_\2/' \
		-e 's/^micad_interval_instruction_mix_ratio{[^}]*group="\([^"]*\)"}/mix_\1/' \
		-e 's/^micad_interval_misprediction_ratio{[^}]*organization="\([A-Za-z]*\)",history="\([0-9]*\)"}/mispredict_\1_\2/' \
		-e 's/^micad_interval_mispredictions_per_instruction{[^}]*organization="\([A-Za-z]*\)",history="\([0-9]*\)"}/mpki_\1_\2 x1000/' \
		-e 's/^micad_interval_branch_taken_ratio{[^}]*}/taken_rate/' \
		-e 's/^micad_interval_branch_transition_ratio{[^}]*}/transition_rate/' \
		-e 's/^micad_interval_register_operands_per_instruction{[^}]*}/avg_register_operands/' \
		-e 's/^micad_interval_register_uses_per_value{[^}]*}/avg_degree_of_use/' \
		-e 's/^micad_interval_dependency_distance_cdf_ratio{[^}]*max_distance="\([0-9]*\)"}/dependency_distance_le_\1/' \
		-e 's/^micad_interval_stride_cdf_ratio{[^}]*kind="\([a-z_]*\)",max_bytes="\([0-9]*\)"}/stride_\1_le_\2/' \
		-e 's/^micad_interval_footprint_bytes{[^}]*memory="data",granularity="block"}/data_footprint_bytes/' \
		-e 's/^micad_interval_footprint_bytes{[^}]*memory="data",granularity="page"}/data_footprint_page_bytes/' \
		-e 's/^micad_interval_footprint_bytes{[^}]*memory="instructions",granularity="block"}/insn_footprint_bytes/' \
		-e 's/^micad_interval_footprint_bytes{[^}]*memory="instructions",granularity="page"}/insn_footprint_page_bytes/' \
		-e 's/^micad_interval_reuse_distance_ratio{[^}]*bucket="\([0-9]*\)"}/reuse_bucket_\1/' \
		-e 's/^micad_interval_reuse_distance_cdf_ratio{[^}]*bucket="\([0-9]*\)"}/reuse_cdf_\1/' \
		-e 's/^micad_interval_cold_reference_ratio{[^}]*}/reuse_cold/' |
		awk '$2 == "x1000" { print $1, $3 * 1000; next } { print }' >"$tmp/api.txt"
	cmp=$(awk 'NR == FNR { v[$1] = $2; n++; next }
		{ m++; if (!($1 in v)) bad++
		  else if (v[$1] == "NaN" || $2 == "NaN") { if (v[$1] != $2) bad++ }
		  else if ((v[$1] - $2) ^ 2 > 1e-20) bad++ }
		END { print n " " m " " bad + 0 }' "$tmp/view.txt" "$tmp/api.txt")
	is "$cmp" "$(wc -l <"$tmp/view.txt" | tr -d ' ') $(wc -l <"$tmp/view.txt" | tr -d ' ') 0" \
		"every metric of the metric view, same value, NULL as NaN (names, count, mismatches: $cmp)"
else
	n_test=$((n_test + 1))
	echo "ok $n_test - # SKIP sqlite3 CLI not installed"
fi
if command -v promtool >/dev/null 2>&1; then
	printf '%s\n' "$body" | promtool check metrics >"$tmp/promtool.out" 2>&1
	ok $? "promtool check metrics accepts the scrape of an ended session $(head -c 300 "$tmp/promtool.out")"
	get /metrics
	printf '%s\n' "$body" | promtool check metrics >"$tmp/promtool.out" 2>&1
	ok $? "promtool check metrics accepts the scrape of a running session $(head -c 300 "$tmp/promtool.out")"
else
	for i in 1 2; do
		n_test=$((n_test + 1))
		echo "ok $n_test - # SKIP promtool not installed (Debian package prometheus)"
	done
fi
n_help=$(printf '%s\n' "$body" | grep -c '^# TYPE micad_session_instructions_total ')
is "$n_help" 1 "each metric family has one TYPE line"
getraw "/metrics" -H "Authorization: Bearer $rtok"
has "$body" 'micad_session_running{session="2"' "root's scrape sees root's running session"

# HEAD: the GET's status and headers (Content-Length that of the GET's
# body), and not one byte of body.  Read from the socket to its close, as
# curl would not show bytes sent after the headers of a HEAD answer.
# (Not /metrics: it counts the requests, so two in a row differ.)
# head_vs_get PATH: "STATUS|HEAD-HEADERS|GET-HEADERS|BODY-BYTES|CL-OK"
head_vs_get() {
	python3 - "$port" "$1" "$tok" <<'PY'
import socket, sys
port, path, tok = int(sys.argv[1]), sys.argv[2], sys.argv[3]
def ask(method):
    s = socket.create_connection(("127.0.0.1", port), timeout=20)
    s.sendall(("%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAuthorization: Bearer %s\r\n"
               "Connection: close\r\n\r\n" % (method, path, port, tok)).encode())
    data = b""
    while True:
        b = s.recv(65536)
        if not b:
            break
        data += b
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    hdrs = sorted(l for l in lines[1:] if not l.lower().startswith("date:"))
    return lines[0], hdrs, body
st, hh, hb = ask("HEAD")
gst, gh, gb = ask("GET")
print("%s|%s|%s|%d|%s" % (st, " ; ".join(hh), " ; ".join(gh), len(hb),
      ("Content-Length: %d" % len(gb)) in gh))
PY
}
for p in /api/sessions /api/sessions/1 /api/sessions/1/intervals /api/nope; do
	IFS='|' read -r hst hh gh hbytes cl <<EOF
$(head_vs_get "$p")
EOF
	case $p in /api/nope) want="HTTP/1.1 404 Not Found" ;; *) want="HTTP/1.1 200 OK" ;; esac
	is "$hst" "$want" "HEAD $p: the GET's status"
	is "$hh" "$gh" "HEAD $p: the GET's headers, Content-Length included"
	is "$hbytes/$cl" "0/True" "HEAD $p: no body byte; Content-Length is the GET body's length"
done

stop_server
is "$server_status" 0 "server stops cleanly on SIGTERM"
done_testing
