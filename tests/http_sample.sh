#!/bin/sh
# A sample-mode session's estimates in the JSON API (issue 18), on the
# fixture of `tests/http_fixture --sample`, whose comment computes every
# number by hand: each value of a series, an interval, an overview bucket
# and the session carries its 95% confidence interval, its bursts and
# whether it is estimable (ci_low, ci_high, n_bursts, estimable), null in
# step mode; the session's estimates (GET .../estimates) equal the
# session_metric view's, the rows of views/metric the metric view's.
# Values are compared to 10 significant digits.
. "$top_srcdir/tests/http_lib.sh"

command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed"

db=$tmp/sample.db
"$top_builddir/tests/http_fixture" "$db" --sample || {
	echo "Bail out! http_fixture --sample failed"
	exit 1
}
start_server

# pj EXPR: EXPR (Python) over the body parsed as JSON (b), floats to 10
# significant digits, printed as compact JSON.
pj() {
	printf '%s' "$body" | python3 -c '
import json, sys
def r(x):
    if isinstance(x, float):
        return float("%.10g" % x)
    if isinstance(x, list):
        return [r(v) for v in x]
    if isinstance(x, dict):
        return {k: r(v) for k, v in x.items()}
    return x
b = json.load(sys.stdin)
print(json.dumps(r(eval(sys.argv[1])), separators=(",", ":")))' "$1" 2>&1
}

# ---- series ----
get "/api/sessions/1/series?metric=mix_mem_read"
is "$code" 200 "series of a sampled session"
is "$(pj '[b["sampled"], b["level"]]')" '[true,0.95]' "series: sampled, level 0.95"
is "$(pj 'b["threads"][0]')" \
	'{"tid":600,"interval":[0,1,2],"value":[0.3,0.3,0.3],"ci_low":[0,0,0.05158349968],"ci_high":[0.808248,0.93531,0.5484165003],"n_bursts":[2,2,3],"estimable":[true,true,true]}' \
	"series mix_mem_read, thread 600: 0.3 -/+ 12.7062 x 0.04, 12.7062 x 0.05 (clamped at 0), 4.3027 x 0.0577350, bursts 2, 2, 3"
is "$(pj 'b["threads"][1]')" \
	'{"tid":601,"interval":[0],"value":[0.6],"ci_low":[null],"ci_high":[null],"n_bursts":[1],"estimable":[true]}' \
	"series, thread 601: one burst, no CI"
get "/api/sessions/1/series?metric=mix_mem_read&tid=600&from=1"
is "$(pj '[b["threads"][0][k] for k in ("interval", "ci_low", "n_bursts")]')" \
	'[[1,2],[0,0.05158349968],[2,3]]' "series with tid and from: the estimates of those intervals"
get "/api/sessions/1/series?metric=ilp_256&tid=600"
is "$(pj '[b["threads"][0][k] for k in ("value", "ci_low", "ci_high", "estimable")]')" \
	'[[8,16,24],[-8.263936,null,null],[24.263936,null,null],[true,null,null]]' \
	"series ilp_256: 8 -/+ 12.7062 x 1.28 where it has sums (no proportion: not clamped), null where none"
# Read interval by interval (not one of the charted families).
get "/api/sessions/1/series?metric=reuse_bucket_0&tid=600"
is "$(pj '[b["threads"][0][k] for k in ("value", "ci_low", "ci_high", "n_bursts")]')" \
	'[[0.2,0.2,0.2],[0,null,null],[1,null,null],[2,2,3]]' \
	"series reuse_bucket_0 (interval by interval): 0.2 -/+ 12.7062 x 0.1, clamped to [0, 1]"
get "/api/sessions/1/series?metric=reuse_bucket_2&tid=600"
is "$(pj '[b["threads"][0][k] for k in ("value", "ci_low", "ci_high", "estimable")]')" \
	'[[0.1,0.1,0.1],[null,null,null],[null,null,null],[null,false,null]]' \
	"series reuse_bucket_2: not estimable in interval 1 (beyond the horizon), no CI"
get "/api/sessions/1/series?metric=data_footprint_bytes&tid=600"
is "$(pj '[b["threads"][0][k] for k in ("ci_low", "n_bursts", "estimable")]')" \
	'[[null,null,null],[2,2,3],[null,null,null]]' "series of a footprint: bursts, no estimate (a lower bound)"
get "/api/sessions/1/series?metric=reuse_censored&tid=600"
is "$(pj '[b["threads"][0]["value"], b["points"]]')" '[[0,0,0],3]' \
	"series reuse_censored: sample mode's metric is served too"
get "/api/sessions/2/series?metric=mix_mem_read"
is "$body" '{"session":2,"metric":"mix_mem_read","sampled":false,"level":null,"threads":[{"tid":700,"interval":[0],"value":[0.3],"ci_low":null,"ci_high":null,"n_bursts":null,"estimable":null}],"points":1}' \
	"series of a step-mode session: the same fields, null"

# ---- overview: the units of each bucket pooled ----
get "/api/sessions/1/overview?metric=mix_mem_read&tid=600&buckets=2"
is "$(pj '{k: b["buckets"][k] for k in ("lo", "estimate", "ci_low", "ci_high", "n_bursts", "estimable")}')" \
	'{"lo":[0,2],"estimate":[0.3,0.3],"ci_low":[0.2067139131,0.05158349968],"ci_high":[0.3932860869,0.5484165003],"n_bursts":[4,3],"estimable":[true,true]}' \
	"overview: intervals 0-1 pooled (residuals -20, 20, -50, 50: SE sqrt(5800 / 12) / 750, t(3) 3.1824), interval 2 alone"
get "/api/sessions/2/overview?metric=mix_mem_read&tid=700"
is "$(pj '[b["sampled"], b["level"], b["buckets"]["ci_low"], b["buckets"]["estimate"], b["buckets"]["mean"]]')" \
	'[false,null,null,null,[0.3]]' "overview of a step-mode session: the estimate fields null"

# ---- intervals ----
get "/api/sessions/1/intervals?tid=600&to=1&analysis=ilp"
is "$(pj '[{k: i[k] for k in ("index", "n_bursts", "aborted_bursts", "warmup_ins")} for i in b["intervals"]]')" \
	'[{"index":0,"n_bursts":2,"aborted_bursts":1,"warmup_ins":2000},{"index":1,"n_bursts":2,"aborted_bursts":0,"warmup_ins":4000}]' \
	"intervals: bursts, aborted bursts, warm-up instructions"
is "$(pj 'b["intervals"][0]["estimates"]["mix_mem_read"]')" \
	'{"value":0.3,"ci_low":0,"ci_high":0.808248,"se":0.04,"n_bursts":2,"estimable":true}' \
	"interval 0: mix_mem_read's estimate"
is "$(pj 'sorted(b["intervals"][0]["estimates"])')" '["ilp_256","mix_mem_read","reuse_bucket_0"]' \
	"interval 0: the metrics with sums"
is "$(pj 'b["intervals"][1]["estimates"]["reuse_bucket_2"]')" \
	'{"value":0.1,"ci_low":null,"ci_high":null,"se":0.05,"n_bursts":2,"estimable":false}' \
	"interval 1: reuse_bucket_2 not estimable: its SE, no interval"
get "/api/sessions/2/intervals?analysis=ilp"
is "$(pj '[b["intervals"][0][k] for k in ("n_bursts", "aborted_bursts", "warmup_ins", "estimates")]')" \
	'[null,null,null,null]' "intervals of a step-mode session: null"

# ---- the session's estimates ----
get "/api/sessions/1/estimates"
is "$code" 200 "GET estimates"
is "$(pj '{k: b[k] for k in ("session", "tid", "from", "to", "sampled", "level", "n_bursts", "U", "W")}')" \
	'{"session":1,"tid":null,"from":0,"to":null,"sampled":true,"level":0.95,"n_bursts":8,"U":812.5,"W":1625}' \
	"estimates: 8 bursts, U = 6500 / 8, W = 13000 / 8"
is "$(pj '[e["metric"] for e in b["estimates"]]')" '["ilp_256","mix_mem_read","reuse_bucket_0","reuse_bucket_2"]' \
	"estimates: one per metric with sums, by name"
is "$(pj 'b["estimates"][1]')" \
	'{"metric":"mix_mem_read","value":0.3230769231,"ci_low":0.2381157159,"ci_high":0.4080381302,"se":0.03593047752,"half_width":0.08496120714,"rel_half_width":0.262975165,"cv":0.3145589485,"n_bursts":8,"U":812.5,"W":1625,"level":0.95,"estimable":true}' \
	"estimates: mix_mem_read over every unit, 2100 / 6500, half-width t(7) SE = 2.3646 SE"
is "$(pj '[b["estimates"][3][k] for k in ("ci_low", "ci_high", "half_width", "estimable")]')" \
	'[null,null,0.63531,false]' "estimates: reuse_bucket_2 not estimable in one interval: no CI"
# The same as the view, column by column.
if command -v sqlite3 >/dev/null 2>&1; then
	sqlite3 -json "$db" "SELECT * FROM session_metric WHERE session_id = 1 ORDER BY metric" >"$tmp/sm.json"
	cmp=$(printf '%s' "$body" | python3 -c '
import json, sys
api = json.load(sys.stdin)["estimates"]
view = json.load(open(sys.argv[1]))
bad = []
if len(api) != len(view):
    bad.append("rows %d != %d" % (len(api), len(view)))
for a, v in zip(api, view):
    for k in v:
        if k == "session_id":
            continue
        x, y = a.get(k), v[k]
        if k == "estimable":
            x = int(x)
        if (x is None) != (y is None) or (x is not None and abs(x - y) > 1e-12 * max(1, abs(y))):
            bad.append("%s %s: %r != %r" % (v["metric"], k, x, y))
print("; ".join(bad))' "$tmp/sm.json")
	is "$cmp" "" "estimates: the session_metric view's rows, every column"
else
	ok 0 "# SKIP sqlite3 CLI not installed"
fi
get "/api/sessions/1/estimates?tid=600&from=1"
is "$(pj '[b["n_bursts"], b["U"], b["W"], [e["metric"] for e in b["estimates"]]]')" \
	'[5,1000,2000,["mix_mem_read","reuse_bucket_2"]]' "estimates of thread 600 from interval 1: 5 bursts"
is "$(pj '[b["estimates"][0][k] for k in ("value", "se", "n_bursts")]')" '[0.3,0.03535533906,5]' \
	"... mix_mem_read pooled over 5 units: SE sqrt(25000 / 20) / 1000"
get "/api/sessions/2/estimates"
is "$body" '{"session":2,"tid":null,"from":0,"to":null,"sampled":false,"level":null,"n_bursts":null,"U":null,"W":null,"estimates":null}' \
	"estimates of a step-mode session: null"
get "/api/sessions/1/estimates?from=2&to=1"
is "$code" 400 "estimates: from after to, 400"

# ---- proportions (proportion_metric): the rule of three, the clamp ----
get "/api/sessions/3/estimates?tid=800&to=0"
is "$(pj '{e["metric"]: [e[k] for k in ("value", "ci_low", "ci_high", "se")] for e in b["estimates"] if e["metric"] != "mix_mem_read"}')" \
	'{"mix_mem_write":[0.1,0,0.3235748503,0.05196152423],"mpki_GAg_8":[0,0,500,255.1020408],"stride_global_write_le_262144":[1,0.25,1,0.3826530612]}' \
	"estimates: no miss seen in 6 bursts, the rule of three [0, 3000 / 6]; every write in 4, [1 - 3 / 4, 1]; 0.1 -/+ 4.3027 x 0.0519615 clamped at 0"
get "/api/sessions/3/series?metric=mpki_GAg_8&tid=800&to=1"
is "$(pj '[b["threads"][0][k] for k in ("value", "ci_low", "ci_high")]')" '[[0,0],[0,null],[500,null]]' \
	"series mpki_GAg_8: the rule of three where it has sums"
get "/api/sessions/3/series?metric=stride_global_write_le_262144&tid=800&to=0"
is "$(pj '[b["threads"][0][k] for k in ("value", "ci_low", "ci_high")]')" '[[1],[0.25],[1]]' \
	"series stride_global_write_le_262144 (interval by interval): [0.25, 1]"
get "/api/sessions/3/overview?metric=mix_mem_write&tid=800&to=0&buckets=1"
is "$(pj '[b["buckets"][k] for k in ("estimate", "ci_low", "ci_high")]')" '[[0.1],[0],[0.3235748503]]' \
	"overview mix_mem_write: clamped at 0"
get "/api/sessions/3/intervals?tid=800&to=0&analysis=ilp"
is "$(pj '{k: [v[x] for x in ("ci_low", "ci_high")] for k, v in b["intervals"][0]["estimates"].items() if k != "mix_mem_read"}')" \
	'{"mix_mem_write":[0,0.3235748503],"mpki_GAg_8":[0,500],"stride_global_write_le_262144":[0.25,1]}' \
	"intervals: the same intervals"
if command -v sqlite3 >/dev/null 2>&1; then
	is "$(sqlite3 "$db" "SELECT group_concat(metric || ' ' || printf('%.10g %.10g', ci_low, ci_high), ', ') FROM (SELECT * FROM metric WHERE session_id = 3 AND tid = 800 AND interval = 0 AND metric IN ('mix_mem_write', 'mpki_GAg_8', 'stride_global_write_le_262144') ORDER BY metric)")" \
		"mix_mem_write 0 0.3235748503, mpki_GAg_8 0 500, stride_global_write_le_262144 0.25 1" \
		"view metric: the same intervals"
	is "$(sqlite3 "$db" "SELECT group_concat(metric || ' ' || printf('%.10g %.10g %.10g', ci_low, ci_high, se), ', ') FROM (SELECT * FROM metric_estimate WHERE session_id = 3 AND tid = 800 AND interval = 0 AND metric IN ('mix_mem_write', 'mpki_GAg_8', 'stride_global_write_le_262144') ORDER BY metric)")" \
		"mix_mem_write 0 0.3235748503 0.05196152423, mpki_GAg_8 0 500 255.1020408, stride_global_write_le_262144 0.25 1 0.3826530612" \
		"view metric_estimate: the same intervals and SEs"
	is "$(sqlite3 "$db" "SELECT group_concat(metric || ' ' || printf('%.10g %.10g %.10g', ci_low, ci_high, se), ', ') FROM (SELECT * FROM session_metric WHERE session_id = 3 AND metric IN ('mix_mem_write', 'mpki_GAg_8', 'stride_global_write_le_262144') ORDER BY metric)")" \
		"mix_mem_write 0 0.3235748503 0.05196152423, mpki_GAg_8 0 500 255.1020408, stride_global_write_le_262144 0.25 1 0.3826530612" \
		"view session_metric: the same"
	is "$(sqlite3 "$db" "SELECT printf('%.10g %.10g', min(ci_low), max(ci_high)) FROM metric WHERE session_id = 1 AND metric = 'ilp_256'")" \
		"-8.263936 24.263936" "view metric: a ratio that is no proportion is not clamped (ilp_256: 8 -/+ 12.7062 x 1.28)"
else
	for i in 1 2 3 4; do ok 0 "# SKIP sqlite3 CLI not installed"; done
fi

# ---- views/metric: the metric view's rows, estimates included ----
get "/api/sessions/1/views/metric?limit=100000"
is "$(pj 'b["columns"]')" '["session_id","tid","interval","metric","value","ci_low","ci_high","n_bursts"]' \
	"views/metric: the view's columns"
if command -v sqlite3 >/dev/null 2>&1; then
	sqlite3 -json "$db" "SELECT * FROM metric WHERE session_id = 1 ORDER BY tid, interval, metric" \
		>"$tmp/m.json"
	cmp=$(printf '%s' "$body" | python3 -c '
import json, sys
api = json.load(sys.stdin)
view = json.load(open(sys.argv[1]))
cols = api["columns"]
rows = [dict(zip(cols, r)) for r in api["rows"]]
bad = []
if len(rows) != len(view):
    bad.append("rows %d != %d" % (len(rows), len(view)))
cis = 0
for a, v in zip(rows, view):
    for k in cols:
        x, y = a[k], v[k]
        if (x is None) != (y is None) or (x is not None and x != y and
                                          abs(x - y) > 1e-12 * max(1, abs(y))):
            bad.append("%s/%s %s: %r != %r" % (v["interval"], v["metric"], k, x, y))
    cis += a["ci_low"] is not None
print("; ".join(bad[:5]) or "same, %d with a CI" % cis)' "$tmp/m.json")
	is "$cmp" "same, 5 with a CI" \
		"views/metric: the metric view's rows, value for value (5 with a CI: 3 mix_mem_read, ilp_256, reuse_bucket_0)"
else
	ok 0 "# SKIP sqlite3 CLI not installed"
fi
get "/api/sessions/1/views/metric?tid=600&from=1&to=1&format=csv&limit=100000"
has "$body" "session_id,tid,interval,metric,value,ci_low,ci_high,n_bursts" "views/metric CSV: the estimates' columns"
has "$body" "1,600,1,mix_mem_read,0.3,0,0.9353" "views/metric CSV: interval 1's mix_mem_read, 0.3 - 12.7062 x 0.05 clamped at 0 ..."
has "$body" ",0.9353100000000001,2
" "... to 0.3 + 12.7062 x 0.05 (the double 0.3 + 0.63531 to 17 digits), 2 bursts"
has "$body" "1,600,1,reuse_bucket_2,0.1,,,2" "views/metric CSV: not estimable, no CI"
get /api
has "$body" '"/api/sessions/{id}/estimates"' "/api lists the estimates endpoint"

stop_server
done_testing
