#!/bin/sh
# The HTTP server at scale (issue 22), without timing anything:
# * every query the API makes has a plan that reads through an index or a
#   key: no table scan, no sort of a session's rows (a page of a view
#   streams in order); the session list, a session's summary and /metrics
#   do not visit the session's intervals at all (thread_total), so they
#   cost the same at any number of intervals;
# * two slow requests held open do not stop /metrics, /api or the session
#   list from answering meanwhile (a thread per connection), and once their
#   clients go away the server stops their queries;
# * a request past its time budget gets a 503, an answer past the size
#   limit a 413, each saying what to do;
# * JSON, CSV, /metrics and the UI's text files go gzipped to a client that
#   asks; a finished session's answers and the static files carry an ETag
#   (static files a Last-Modified too) and a revalidation gets a 304.
# Every wait is on a condition with a generous deadline.
. "$top_srcdir/tests/http_lib.sh"

command -v awk >/dev/null 2>&1 || skip_all "no awk"

# ---- plans ----
make_fixture
start_server --live 3 --plan-log "$tmp/plans" --web "$top_srcdir/web"

# ---- compression and caching ----
get /api/sessions/1/intervals -H 'Accept-Encoding: gzip'
is "$(header Content-Encoding)" gzip "API JSON gzipped when the client accepts gzip"
is "$(header Vary)" Accept-Encoding "... Vary: Accept-Encoding"
gunzip -c "$tmp/body" >"$tmp/unzipped" 2>/dev/null
get /api/sessions/1/intervals
is "$(header Content-Encoding)" "" "... not without Accept-Encoding"
cmp -s "$tmp/body" "$tmp/unzipped"
ok $? "... and the gzipped body is the same JSON"
get /api/sessions/1/intervals -H 'Accept-Encoding: gzip;q=0, deflate'
is "$(header Content-Encoding)" "" "gzip;q=0 refuses gzip"
get "/api/sessions/1/views/stride_cdf?format=csv" -H 'Accept-Encoding: br, gzip'
is "$(header Content-Encoding)" gzip "CSV gzipped"
get /metrics -H 'Accept-Encoding: gzip'
is "$(header Content-Encoding)" gzip "/metrics gzipped"
get /api/sessions/1/intervals
etag=$(header ETag)
has "$etag" 'W/"s1-' "a finished session's answer has an ETag"
is "$(header Cache-Control)" "private, no-cache" "... and may be kept, revalidated (private, no-cache)"
rm -f "$tmp/body"
get /api/sessions/1/intervals -H "If-None-Match: $etag"
is "$code" 304 "If-None-Match with it: 304"
is "$(cat "$tmp/body" 2>/dev/null | wc -c | tr -d ' ')" 0 "... no body"
get "/api/sessions/1/intervals?tid=100" -H "If-None-Match: $etag"
is "$code" 200 "another query of the session: another ETag, 200"
get /api/sessions/3/intervals
is "$(header ETag)" "" "a running session's answers have no ETag"
is "$(header Cache-Control)" "no-store" "... and are not kept"
get /api/sessions/1/mgsim/counters
is "$(header ETag)" "" "the MGSim counters (reads are counted) have no ETag"
getraw /session.js -H 'Accept-Encoding: gzip'
is "$(header Content-Encoding)" gzip "a static text file gzipped"
setag=$(header ETag)
lm=$(header Last-Modified)
has "$lm" " GMT" "static files: Last-Modified"
getraw /session.js -H "If-None-Match: $setag"
is "$code" 304 "static file, If-None-Match: 304"
getraw /session.js -H "If-Modified-Since: $lm"
is "$code" 304 "static file, If-Modified-Since: 304"
getraw /session.js -H 'If-None-Match: W/"other"'
is "$code" 200 "static file, another ETag: 200"
getraw /favicon.svg -H 'Accept-Encoding: gzip'
is "$code" 200 "the icon"

# plans PATH: the plans of the queries of one request, in $tmp/req.plans.
plans() {
	: >"$tmp/plans"
	get "$1"
	cp "$tmp/plans" "$tmp/req.plans"
}

# Problems in $tmp/req.plans: a table read whole ("SCAN t" of a table,
# "SCAN t USING ... INDEX" over all of it), or a sort of every row that a
# range of intervals gives ("USE TEMP B-TREE FOR ORDER BY"; a sort of the
# rows of one interval, a query by interval_id, is bounded and allowed,
# and so is "RIGHT PART", a sort within one interval's rows).
bad_plans() {
	awk '
	/^QUERY / { q = substr($0, 7); per_interval = index(q, "interval_id = ?1") > 0; next }
	/^PLAN / {
		p = substr($0, 6)
		if (p ~ /^SCAN / && p !~ /^SCAN (CONSTANT ROW|[0-9]+ CONSTANT ROWS|json_tree|d$|\(subquery-[0-9]+\)|rb$|reuse_bucket|p$|ppm_predictor|k$|mgsim_counter$)/)
			print "table scan: " p " in: " substr(q, 1, 160)
		if (p == "USE TEMP B-TREE FOR ORDER BY" && !per_interval)
			print "sort of a range: " substr(q, 1, 160)
	}' "$tmp/req.plans"
}

# touches_intervals: a plan that reads the interval table by session (a
# range of the session's intervals), not one interval by its key.
touches_intervals() {
	grep -E 'PLAN .*(sqlite_autoindex_interval_1 \(session_id=\?\)|sqlite_autoindex_interval_1 \(session_id=\? AND tid=\?\)|SCAN i\b|SCAN interval)' "$tmp/req.plans" | head -3
}

for p in /api/sessions /api/sessions/1 /api/sessions/3 /metrics "/metrics?session=1"; do
	plans "$p"
	is "$code" 200 "GET $p"
	is "$(bad_plans)" "" "$p: every query through an index or key"
	is "$(touches_intervals)" "" "$p: no query walks the session's intervals (thread_total)"
done
for p in /api /api/sessions/1/threads "/api/sessions/1/intervals?tid=100&from=1&to=2" \
	/api/sessions/1/intervals /api/sessions/1/metrics "/api/sessions/1/series?metric=ilp_256&tid=100" \
	"/api/sessions/1/series?metric=ilp_256" "/api/sessions/1/series?metric=mix_mem_read" \
	"/api/sessions/1/series?metric=mispredict_GAg_4&tid=100" "/api/sessions/1/series?metric=reuse_cold" \
	"/api/sessions/1/overview?metric=ilp_256&tid=100" "/api/sessions/1/overview?metric=mix_other&tid=100" \
	/api/sessions/1/mgsim /api/sessions/1/mgsim/counters \
	"/api/sessions/1/mgsim/counters?since=100:0&at=100:1" "/api/sessions/1/mgsim/counters/3" \
	"/api/sessions/1/mgsim/intervals" "/api/sessions/1/mgsim/intervals?tid=100&from=1" \
	/api/sessions/1/sched "/api/sessions/1/sched?tid=100&from=1"; do
	plans "$p"
	is "$code" 200 "GET $p"
	is "$(bad_plans)" "" "$p: every query through an index or key"
done
for v in ilp_per_window instruction_mix misprediction_rate branch_behaviour register_traffic \
	dependency_distance_cdf stride_cdf footprint_bytes reuse_distance reuse_distance_session \
	cold_references metric; do
	for q in "" "?tid=100&from=1&to=2"; do
		plans "/api/sessions/1/views/$v$q"
		is "$code" 200 "GET views/$v$q"
		is "$(bad_plans)" "" "views/$v$q: rows stream in order through indexes (no scan, no sort)"
	done
done
stop_server

# ---- plans of a sampled session's estimates ----
# Each point's bursts and sums are found by their tables' keys, never a
# scan; the session's estimates are added up in the server in the key's
# order (no sort of the session's sums).
db=$tmp/sample.db
"$top_builddir/tests/http_fixture" "$db" --sample || { echo "Bail out! http_fixture failed"; exit 1; }
start_server --plan-log "$tmp/plans"
sums_key='SEARCH ms USING INDEX sqlite_autoindex_metric_sums_1 (session_id=? AND tid=? AND idx=? AND metric=?)'
for p in "/api/sessions/1/series?metric=mix_mem_read&tid=600" "/api/sessions/1/series?metric=mix_mem_read" \
	"/api/sessions/1/series?metric=ilp_256&tid=600&from=1" "/api/sessions/1/series?metric=reuse_bucket_0&tid=600" \
	"/api/sessions/1/overview?metric=mix_mem_read&tid=600" "/api/sessions/1/intervals?tid=600" \
	/api/sessions/1/intervals /api/sessions/1/estimates "/api/sessions/1/estimates?tid=600&from=1" \
	"/api/sessions/1/views/metric?tid=600&from=1&to=2" /api/sessions/1/views/metric; do
	plans "$p"
	is "$code" 200 "sampled: GET $p"
	is "$(bad_plans)" "" "sampled: $p: every query through an index or key"
done
plans "/api/sessions/1/series?metric=mix_mem_read&tid=600"
has "$(cat "$tmp/req.plans")" "$sums_key" "series: each point's sums by (session_id, tid, idx, metric)"
plans "/api/sessions/1/overview?metric=mix_mem_read&tid=600"
has "$(cat "$tmp/req.plans")" "$sums_key" "overview: each interval's sums by (session_id, tid, idx, metric)"
plans "/api/sessions/1/series?metric=reuse_bucket_0&tid=600"
has "$(cat "$tmp/req.plans")" \
	'SEARCH s USING INDEX sqlite_autoindex_metric_sums_1 (session_id=? AND tid=? AND idx=? AND metric=?)' \
	"series read interval by interval: each point's sums by the whole key"
plans "/api/sessions/1/views/metric?tid=600"
has "$(cat "$tmp/req.plans")" \
	'SEARCH metric_sums USING INDEX sqlite_autoindex_metric_sums_1 (session_id=? AND tid=? AND idx=? AND metric=?)' \
	"views/metric: each row's sums (metric_ci) by the whole key"
plans /api/sessions/1/estimates
has "$(cat "$tmp/req.plans")" 'SEARCH metric_sums USING INDEX sqlite_autoindex_metric_sums_1 (session_id=?)' \
	"estimates: the session's sums through the key"
hasnt "$(cat "$tmp/req.plans")" 'TEMP B-TREE' "estimates: no sort or grouping of the session's sums"
stop_server

# ---- slow requests ----
# 10,000 intervals: the metric view from row 900,000 on is read and
# skipped interval by interval, seconds of work for each request.
db=$tmp/big.db
"$top_builddir/tests/http_fixture" "$db" 10000 || { echo "Bail out! http_fixture failed"; exit 1; }
start_server --budget-ms 600000
slow="/api/sessions/1/views/metric?offset=900000&limit=100000"
curl -s -o /dev/null -H "Authorization: Bearer $tok" "$base$slow" &
slow_pid1=$!
curl -s -o /dev/null -H "Authorization: Bearer $tok" "$base$slow" &
slow_pid2=$!
other_pids="$slow_pid1 $slow_pid2"

# inflight: the number of requests the server is answering, this one
# included (from /metrics).
inflight() {
	get /metrics
	printf '%s\n' "$body" | sed -n 's/^micad_http_requests_in_flight //p'
}
# wait_for CONDITION-COMMAND SECONDS: poll every 0.05 s until true.
wait_for() {
	i=0
	while [ $i -lt $(($2 * 20)) ]; do
		eval "$1" && return 0
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}
wait_for '[ "$(inflight)" = 3 ]' 60
ok $? "/metrics answered while the two slow requests were being answered (3 in flight)"
get /api
c_api=$code
get "/api/sessions"
c_list=$code
has "$body" '"id":1,' "the session list answered"
kill -0 "$slow_pid1" 2>/dev/null && kill -0 "$slow_pid2" 2>/dev/null
still=$?
is "$c_api $c_list $still" "200 200 0" \
	"/api and the session list answered while both slow requests were still running"
wait_for '[ "$(inflight)" = 3 ]' 10
ok $? "... the slow requests still in flight afterwards"

# The clients go away: the server stops their queries (interrupted,
# counted as client_gone) instead of computing answers nobody reads.
kill "$slow_pid1" "$slow_pid2" 2>/dev/null
wait "$slow_pid1" "$slow_pid2" 2>/dev/null
other_pids=
wait_for '[ "$(inflight)" = 1 ]' 60
ok $? "after the clients left, their requests ended"
get /metrics
has "$body" 'micad_http_requests_interrupted_total{reason="client_gone"} 2' \
	"... stopped because the clients were gone"
stop_server

# ---- budget and size ----
start_server --budget-ms 300
get "$slow"
is "$code" 503 "past the time budget: 503"
has "$body" 'ran out of their time budget (0.3 s) and were stopped: ask for less' \
	"... saying so and what to ask instead"
is "$(header Retry-After)" 10 "... with Retry-After"
get /api/sessions
is "$code" 200 "the server answers the next request"
stop_server
start_server --max-response 100000
get "/api/sessions/1/views/metric?limit=100000"
is "$code" 413 "an answer past the size limit: 413"
has "$body" 'would exceed' "... saying so"
get "/api/sessions/1/views/metric?limit=100"
is "$code" 200 "a page within the limit is served"
stop_server
done_testing
