#!/bin/sh
# micad-http(7) documents the server as it answers: every endpoint GET /api
# lists is a tag of the page's Endpoints, and every tag there is one the
# server lists (or /api itself); every view /api lists is named on the
# page; every metric family a /metrics scrape of the fixture's sessions has
# is named on the page, and the page names exactly the families of the
# server's source.
. "$top_srcdir/tests/http_lib.sh"
PAGE="$top_srcdir/doc/micad-http.7"

make_fixture
start_server --live 3

get /api
is "$code" 200 "GET /api"
printf '%s' "$body" | sed -n 's/.*"endpoints":\[\([^]]*\)\].*/\1/p' | tr ',' '\n' |
	sed -e 's/"//g' -e 's/?.*//' -e 's/[{}]//g' | sort -u >"$tmp/api.endpoints"
printf '%s' "$body" | sed -n 's/.*"views":\[\([^]]*\)\].*/\1/p' | tr ',' '\n' |
	sed 's/"//g' | sort -u >"$tmp/api.views"
[ "$(wc -l <"$tmp/api.endpoints")" -ge 15 ] && [ "$(wc -l <"$tmp/api.views")" -ge 10 ]
ok $? "/api lists endpoints and views"

# The tags of the Endpoints subsection: '.BI /api/sessions/ id /threads'.
awk '
	/^\.S[HS]/ { on = ($0 ~ /^\.SS Endpoints/); prev = ""; next }
	on && prev == ".TP" { print }
	{ prev = $0 }
' "$PAGE" | sed -e 's/^\.B[IR]* //' -e 's/\\f[BIRP]//g' -e 's/ //g' -e 's/"//g' |
	sort -u >"$tmp/page.endpoints"
is "$(comm -23 "$tmp/api.endpoints" "$tmp/page.endpoints" | tr '\n' ' ')" "" \
	"every endpoint /api lists is documented in micad-http(7)"
is "$(comm -13 "$tmp/api.endpoints" "$tmp/page.endpoints" | grep -vx /api | tr '\n' ' ')" "" \
	"every endpoint micad-http(7) documents is one /api lists"

missing=
for v in $(cat "$tmp/api.views"); do
	grep -qE "^\.[BIR]+ (\\( )?$v( |\$)" "$PAGE" || missing="$missing $v"
done
is "$missing" "" "every view /api lists is named in micad-http(7)"

: >"$tmp/scraped"
for q in "" "?session=1" "?session=3"; do
	get "/metrics$q"
	is "$code" 200 "GET /metrics$q"
	printf '%s\n' "$body" | sed -n 's/^# TYPE \([a-z_]*\) .*/\1/p' >>"$tmp/scraped"
done
sort -u -o "$tmp/scraped" "$tmp/scraped"
[ "$(wc -l <"$tmp/scraped")" -ge 30 ]
ok $? "the scrapes have metric families ($(wc -l <"$tmp/scraped"))"
grep -oE '^\.BR? micad_[a-z0-9_]+' "$PAGE" | awk '{ print $2 }' | sort -u >"$tmp/page.metrics"
is "$(comm -23 "$tmp/scraped" "$tmp/page.metrics" | tr '\n' ' ')" "" \
	"every metric family of /metrics is documented in micad-http(7)"
# Families without a sample in these scrapes (the fixture has no
# scheduling model rows, and some MGSim counters stay 0) are still in the
# server's table of families.
grep -oE '"micad_[a-z0-9_]+"' "$top_srcdir/daemon/http/http_metrics.c" | tr -d '"' |
	sort -u >"$tmp/source.metrics"
is "$(comm -3 "$tmp/source.metrics" "$tmp/page.metrics" | tr '\n' ' ')" "" \
	"micad-http(7) documents exactly the metric families of daemon/http/http_metrics.c"
stop_server
done_testing
