#!/bin/sh
# 'make bench-http': the HTTP API on loopback against a database of
# 100,000 intervals of one thread (HTTP_BENCH_INTERVALS to change it),
# with bounded load (a number of requests, a time cap, 4 keep-alive
# connections of bench/http_bench).  Every request kind is measured in the
# same run as GET /api, the cheapest answer the server gives, and printed
# as requests per second and p99 latency, and as ratios to /api's: figures
# that say how far a request is from the server's floor whatever the
# machine's load.  Then the web UI's session page: the bytes it loads
# (gzipped, as a browser asks) and, with Chromium, the time until its
# charts are drawn.
set -eu
: "${top_builddir:=.}"
: "${top_srcdir:=.}"
n=${HTTP_BENCH_INTERVALS:-100000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/micad-http-bench.XXXXXX")
pid=
trap 'if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; fi; rm -rf "$tmp"' EXIT

echo "http bench: building a database of $n intervals"
"$top_builddir/tests/http_fixture" "$tmp/bench.db" "$n"
ls -l "$tmp/bench.db" | awk '{ printf "http bench: database %.1f MB\n", $5 / 1e6 }'
"$top_builddir/tests/http_serve" --db "$tmp/bench.db" --listen 127.0.0.1:0 --uid 1000 \
	--web "$top_srcdir/web" --info "$tmp/info" &
pid=$!
i=0
while [ ! -f "$tmp/info" ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i + 1)); done
port=$(sed -n 's/^port //p' "$tmp/info")
tok=$(sed -n 's/^token 1000 //p' "$tmp/info")
last=$((n - 1))

# run NAME REQUESTS SPREAD PATH: one line of results in $tmp/results.
run() {
	name=$1
	shift
	"$top_builddir/bench/http_bench" --port "$port" --token "$tok" --conns 4 --seconds 20 \
		--requests "$1" --spread "$2" "$3" >"$tmp/out" || {
		echo "http bench: $name: errors"
		cat "$tmp/out"
		exit 1
	}
	printf '%s %s\n' "$name" "$(sed -n 's/^result //p' "$tmp/out")" >>"$tmp/results"
}
: >"$tmp/results"
run api 20000 1 '/api?x=%u'
run session-list 20000 1 '/api/sessions?x=%u'
run session-summary 20000 1 '/api/sessions/1?x=%u'
run threads 20000 1 '/api/sessions/1/threads?x=%u'
run one-interval 8000 "$n" '/api/sessions/1/intervals?tid=400&from=%u&limit=1'
run metrics 20000 1 '/metrics?session=1&x=%u'
run series-2000 1000 "$((n - 2000))" '/api/sessions/1/series?metric=ilp_256&tid=400&from=%u&limit=2000'
run overview-ipc 400 1 "/api/sessions/1/overview?tid=400&metric=ipc&buckets=600&x=%u"
run overview-ilp 100 1 "/api/sessions/1/overview?tid=400&metric=ilp_256&buckets=600&x=%u"
run page-100-intervals 400 "$((n - 100))" '/api/sessions/1/intervals?tid=400&from=%u&limit=100'
run view-500-intervals 200 "$((n - 500))" '/api/sessions/1/views/stride_cdf?tid=400&from=%u&limit=14000'
echo
echo "http bench: 4 connections, $n intervals; ratios to GET /api measured in this run"
awk 'NR == 1 { rps = $2; p99 = $4 }
	{ printf "%-20s %9.0f req/s  p99 %8.2f ms  %7.0f B   throughput x%-8.4f p99 x%.1f\n",
		  $1, $2, $4, $5, $2 / rps, $4 / p99 }' "$tmp/results"

# The session page of a 100,000-interval session: what a browser loads.
echo
echo "http bench: the session page (gzip, as a browser asks for it)"
total=0
for p in session.html micad.css vendor/uplot/uPlot.min.css vendor/d3-flame-graph/d3-flamegraph.css \
	vendor/uplot/uPlot.iife.min.js common.js charts.js vendor/d3-flame-graph/d3-flamegraph.min.js \
	profile.js session.js favicon.svg api api/sessions/1 api/sessions/1/threads \
	"api/sessions/1/overview?tid=400&metric=ipc&buckets=600" \
	"api/sessions/1/sched?tid=400&from=$((n - 500))&to=$last&limit=2000" \
	"api/sessions/1/mgsim" "api/sessions/1/mgsim/intervals?tid=400&from=$((n - 500))&to=$last&limit=2000"; do
	b=$(curl -s -o /dev/null -w '%{size_download}' --compressed -H "Authorization: Bearer $tok" \
		"http://127.0.0.1:$port/$p")
	total=$((total + b))
done
for v in ilp_per_window instruction_mix misprediction_rate register_traffic stride_cdf \
	footprint_bytes reuse_distance; do
	b=$(curl -s -o /dev/null -w '%{size_download}' --compressed -H "Authorization: Bearer $tok" \
		"http://127.0.0.1:$port/api/sessions/1/views/$v?tid=400&from=$((n - 500))&to=$last&limit=100000")
	total=$((total + b))
done
echo "page bytes: $total (the files, the API answers of the overview and of the latest 500 intervals)"
chrome=
for c in chromium chromium-browser google-chrome; do
	command -v "$c" >/dev/null 2>&1 && { chrome=$c; break; }
done
if [ -n "$chrome" ] && command -v python3 >/dev/null 2>&1; then
	ready="(() => { try { const s = JSON.parse(document.getElementById('test-status').textContent); return s.page === 'session' && s.chartInfo && s.chartInfo.length >= 8; } catch (e) { return false; } })()"
	for k in 1 2 3; do
		python3 "$top_srcdir/tests/browser_cdp.py" --chrome "$chrome" --profile "$tmp/prof" \
			--log "$tmp/chrome.log" --timeout 60 "go:http://127.0.0.1:$port/?token=$tok" \
			"eval:$tmp/t0=String(Date.now())" \
			"go:http://127.0.0.1:$port/session.html#session=1" "wait:$ready" \
			"eval:$tmp/t1=String(Date.now())" \
			"eval:$tmp/bytes=String(performance.getEntriesByType('resource').reduce((a, e) => a + e.transferSize, 0) + performance.getEntriesByType('navigation')[0].transferSize)"
		echo "page ready in $(( $(cat "$tmp/t1") - $(cat "$tmp/t0") )) ms (Chromium, run $k; $(cat "$tmp/bytes") bytes transferred, cache warm after run 1)"
	done
else
	echo "page ready: not measured (no Chromium or python3)"
fi
