#!/bin/sh
# 'make bench-http': requests per second and latency of the interval API
# on loopback, with a database of 100,000 intervals (one thread), under a
# bounded load (a fixed number of requests, a time cap).
set -eu
: "${top_builddir:=.}"
n=${HTTP_BENCH_INTERVALS:-100000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/micad-http-bench.XXXXXX")
pid=
trap 'if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; fi; rm -rf "$tmp"' EXIT

echo "http bench: building a database of $n intervals"
"$top_builddir/tests/http_fixture" "$tmp/bench.db" "$n"
ls -l "$tmp/bench.db" | awk '{ printf "http bench: database %.1f MB\n", $5 / 1e6 }'
"$top_builddir/tests/http_serve" --db "$tmp/bench.db" --listen 127.0.0.1:0 --uid 1000 \
	--info "$tmp/info" &
pid=$!
i=0
while [ ! -f "$tmp/info" ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i + 1)); done
port=$(sed -n 's/^port //p' "$tmp/info")
tok=$(sed -n 's/^token 1000 //p' "$tmp/info")

run() {
	echo "http bench: $1"
	shift
	"$top_builddir/bench/http_bench" --port "$port" --token "$tok" "$@"
}
run "one interval with every analysis (random interval of 100,000)" --conns 4 --requests 4000 \
	--spread "$n" '/api/sessions/1/intervals?tid=400&from=%u&limit=1'
run "a page of 100 intervals, every analysis" --conns 4 --requests 400 --spread "$((n - 100))" \
	'/api/sessions/1/intervals?tid=400&from=%u&limit=100'
run "a page of 100 intervals, ILP only" --conns 4 --requests 2000 --spread "$((n - 100))" \
	'/api/sessions/1/intervals?tid=400&from=%u&limit=100&analysis=ilp'
run "series of one metric, 1,000 intervals" --conns 4 --requests 400 --spread "$((n - 1000))" \
	'/api/sessions/1/series?metric=ilp_256&tid=400&from=%u&limit=1000'
run "session list" --conns 4 --requests 400 --spread 1 '/api/sessions?x=%u'
