#!/bin/sh
# The HTTP server's hardening (issue 17): requests with many query
# parameters answered at once and without a leak, exactly one Host header
# with exactly an allowed name and our port, the token cookie named after
# the port and set only from the user's own address bar or our pages, and
# a /metrics scrape that promtool accepts whatever bytes a target's command
# line holds.
. "$top_srcdir/tests/http_lib.sh"

raw_n() {	# raw_n HTTP_RAW-ARGS...: status lines of tests/http_raw
	"$top_builddir/tests/http_raw" "$@"
}

rss_kb() {	# rss_kb PID: resident set size in kB
	sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB$/\1/p' "/proc/$1/status"
}

n_fds() {	# n_fds PID: open file descriptors
	ls "/proc/$1/fd" | wc -l
}

params() {	# params N: a query string of N parameters
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "%sparam%d=value%d", i ? "&" : "", i, i }'
}

make_fixture
start_server

# ---- many query parameters ----
# libmicrohttpd keeps every parameter in the connection's memory pool
# before micad sees the request.  1000 of them once overflowed it: the
# request was never answered and its state (allocated in the URI callback)
# leaked, unauthenticated.
many=$(params 1000)
req="GET /api?$many HTTP/1.1\r\nHost: 127.0.0.1:$port\r\n\r\n"
is "$(raw_n -k -t 5 "$port" "$req")" "HTTP/1.1 414 URI Too Long" \
	"1000 parameters, connection kept open: answered 414 at once"
getraw "/api?$many"
is "$code" 414 "... curl gets the 414 too"
has "$body" '"message":"too many query parameters (1000): the limit is 400"' \
	"... and a JSON body that says what the limit is"
getraw "/api?$(params 400)"
is "$code" 401 "400 parameters are within the limit (401: no token)"
get "/api?$(params 400)"
is "$code" 200 "... and served with a token"
getraw "/api?$(params 401)"
is "$code" 414 "401 parameters: 414"

# 2000 requests that wait for their answer, 2000 whose client gives up at
# once (the server still reads them) and 300 of 3000 parameters, more than
# libmicrohttpd's pool holds (it fails them before micad's handler runs).
# Once the server has closed all those connections (each holds a 128 KiB
# pool until then), its RSS is what it was.  A first round warms up what
# first use makes (each worker thread's malloc arena, as many as the
# machine's load lets run at once); the second is measured: a leak grows
# with every round (the old code's went from 5.4 to 42 MB in one).
huge="GET /api?$(params 3000) HTTP/1.1\r\nHost: 127.0.0.1:$port\r\n\r\n"
fds=$(n_fds "$server_pid")
fds_back() { [ "$(n_fds "$server_pid")" -le "$fds" ]; }
round() {	# round N: the three kinds of requests, then wait for the fds
	raw_n -n 2000 -t 5 "$port" "$req" >"$tmp/answers$1"
	raw_n -n 2000 -c "$port" "$req" >/dev/null
	raw_n -n 300 -c "$port" "$huge" >/dev/null
	wait_until 300 "the server to close the connections ($fds fds before)" fds_back
}
round 1
before=$(rss_kb "$server_pid")
round 2
is "$(sort "$tmp/answers2" | uniq -c | sed 's/^ *//')" "2000 HTTP/1.1 414 URI Too Long" \
	"2000 requests of 1000 parameters: each answered 414"
after=$(rss_kb "$server_pid")
if ldd "$top_builddir/tests/http_serve" 2>/dev/null | grep -q libasan; then
	# ASan keeps freed memory in quarantine and never gives it back,
	# so RSS says nothing there; its leak check at exit covers the leaks.
	n_test=$((n_test + 1))
	echo "ok $n_test # SKIP the server's RSS after 2300 connections given up: not measurable under AddressSanitizer (its quarantine keeps freed memory); LeakSanitizer checks the leaks at exit"
else
	ok $([ $((after - before)) -lt 3072 ]; echo $?) \
		"... and 2300 more given up at once: the server's RSS stays flat (${before} kB before, ${after} kB after, 3 MB slack)"
fi

# Past what the pool holds (about 1500 parameters), libmicrohttpd 0.9.75
# cannot answer at all; the connection must not hang for the 30 s idle
# timeout either.
is "$(raw_n -k -t 10 "$port" "$huge")" "closed" \
	"3000 parameters, connection kept open: closed within seconds, not left waiting"
get /api
is "$code" 200 "the server still answers"

# ---- Host header: exactly one, exactly an allowed name and our port ----
for h in '[::1]evil.com' "[::1]evil.com:$port" 'localhost.evil.com' "localhost.evil.com:$port" \
	"localhost:$((port + 1))" "127.0.0.1:$port.evil.com" 'localhost:' "localhost:0$port" \
	'localhost.' "[::1]:$port:$port" '[::1'; do
	get /api -H "Host: $h"
	is "$code" 421 "Host '$h': 421"
done
has "$body" "Host header not accepted: use http://127.0.0.1:$port/" "... saying which names work"
for h in "localhost:$port" "127.0.0.1:$port" "[::1]:$port" localhost 127.0.0.1 "LocalHost:$port"; do
	get /api -H "Host: $h"
	is "$code" 200 "Host '$h': accepted"
done
is "$(raw "GET /api HTTP/1.1\r\nHost: 127.0.0.1:$port\r\nHost: evil.example\r\n\r\n")" \
	"HTTP/1.1 400 Bad Request" "two Host headers (ours first): 400"
is "$(raw "GET /api HTTP/1.1\r\nHost: evil.example\r\nHost: 127.0.0.1:$port\r\n\r\n")" \
	"HTTP/1.1 400 Bad Request" "two Host headers (ours second): 400"
is "$(raw "GET /api HTTP/1.1\r\nHost: 127.0.0.1:$port\r\nhost: 127.0.0.1:$port\r\n\r\n")" \
	"HTTP/1.1 400 Bad Request" "the same Host twice: 400"

# ---- the token cookie: per port, set only same-origin ----
# Cookies ignore ports: a browser sends every cookie of 127.0.0.1 to each
# micad there.  A second server stands for a second micad.
port1=$port tok1=$tok pid1=$server_pid
mv "$tmp/server.err" "$tmp/server1.err"
other_pids=$pid1
start_server
port2=$port tok2=$tok
base1=http://127.0.0.1:$port1 base2=http://127.0.0.1:$port2

base=$base1
getraw "/?token=$tok1" -H "Sec-Fetch-Site: none"
is "$code" 303 "server 1: ?token= from the address bar: redirect"
is "$(header Set-Cookie)" "micad_token_$port1=$tok1; Path=/; HttpOnly; SameSite=Strict" \
	"... setting micad_token_$port1"
base=$base2
getraw "/?token=$tok2" -H "Sec-Fetch-Site: none"
is "$(header Set-Cookie)" "micad_token_$port2=$tok2; Path=/; HttpOnly; SameSite=Strict" \
	"server 2 sets micad_token_$port2: another name, so one does not overwrite the other"
jar="Cookie: micad_token_$port1=$tok1; micad_token_$port2=$tok2"
getraw /api -H "$jar"
is "$code" 200 "both cookies sent to server 2: it takes its own"
base=$base1
getraw /api -H "$jar"
is "$code" 200 "both cookies sent to server 1: it takes its own"
getraw /api -H "Cookie: micad_token_$port2=$tok2"
is "$code" 401 "server 2's cookie alone at server 1: refused"
base=$base2
getraw /api -H "Cookie: micad_token_$port1=$tok1"
is "$code" 401 "server 1's cookie alone at server 2: refused"
getraw /api -H "Cookie: micad_token_$port2=$tok1"
is "$code" 401 "server 1's token under server 2's name: refused"
getraw /api -H "Cookie: micad_token=$tok2"
is "$code" 401 "a cookie without the port: ignored"
getraw /api -H "Cookie: micad_token_${port2}0=$tok1; micad_token_$port2=$tok2"
is "$code" 200 "a cookie whose name extends ours (port ${port2}0's) is passed over for ours"

# A ?token= link on another site must not sign the browser in with the
# link author's token.
for hdr in "Sec-Fetch-Site: cross-site" "Sec-Fetch-Site: same-site" "Origin: http://evil.example" \
	"Origin: null" "Referer: http://evil.example/?u=http://127.0.0.1:$port2/" \
	"Referer: http://127.0.0.1:$port2.evil.example/" "X-None: no proof at all"; do
	getraw "/?token=$tok2" -H "$hdr"
	is "$code/$(header Set-Cookie)" "403/" "?token= with '$hdr': 403, no cookie"
done
has "$body" "cannot sign you in" "... saying why"
getraw "/session.html?token=$tok2&id=1" -H "Sec-Fetch-Site: cross-site" -H "Origin: http://127.0.0.1:$port2"
is "$code" 403 "Sec-Fetch-Site decides over a matching Origin"
for hdr in "Sec-Fetch-Site: same-origin" "Sec-Fetch-Site: none" "Origin: http://127.0.0.1:$port2" \
	"Referer: http://127.0.0.1:$port2/session.html?id=1"; do
	getraw "/session.html?token=$tok2&id=1" -H "$hdr"
	is "$code $(header Location)" "303 /session.html?id=1" "?token= with '$hdr': redirect"
	is "$(header Set-Cookie)" "micad_token_$port2=$tok2; Path=/; HttpOnly; SameSite=Strict" \
		"... and the cookie"
done

# The token is compared on all 64 hex digits (256 bits): changed at any
# one position, to any other digit, it is refused, in each of the three
# places a token is taken from.
variants() {	# variants TOKEN: each position changed once (two other digits each)
	printf '%s\n' "$1" | awk '{
		for (i = 1; i <= length($0); i++)
			for (k = 1; k <= 2; k++) {
				d = index("0123456789abcdef", substr($0, i, 1)) - 1
				printf "%s%s%s\n", substr($0, 1, i - 1),
					substr("0123456789abcdef", (d + 8 * k - 4 + 16) % 16 + 1, 1), substr($0, i + 1)
			}
	}'
}
variants "$tok2" | sed 's/^/Bearer /' | each_header /api Authorization | sed 's/ Bearer / /' >"$tmp/each.res"
all_coded 401 "token changed at any one of its 64 positions, as Bearer: 401" <"$tmp/each.res"
variants "$tok2" | sed "s/^/micad_token_$port2=/" | each_header /api Cookie >"$tmp/each.res"
all_coded 401 "... as the cookie: 401" <"$tmp/each.res"
variants "$tok2" | sed 's|^|/api?token=|' | each_path >"$tmp/each.res"
all_coded 401 "... as ?token=: 401" <"$tmp/each.res"
printf '%s\n' "Bearer $tok2" "Bearer $(printf %s "$tok2" | tr a-f A-F)" "Bearer $(printf %s "$tok2" | cut -c1-63)" \
	"Bearer ${tok2}0" "Bearer 0$tok2" "Bearer $(printf %s "$tok2" | cut -c2-)" |
	each_header /api Authorization >"$tmp/forms"
is "$(cut -d' ' -f1 "$tmp/forms" | tr '\n' ' ')" "200 401 401 401 401 401 " \
	"the token itself: 200; upper-cased, one digit short, one digit more (at either end), its first digit cut: 401"
stop_server
kill "$pid1"
wait "$pid1"
is "$?" 0 "server 1: clean stop"
other_pids=
log=$(cat "$tmp/server1.err")
hasnt "$log" "Sanitizer" "no sanitizer report from server 1"

# ---- /metrics of a command line with hostile bytes ----
"$top_builddir/tests/http_fixture" "$db" --hostile || {
	echo "Bail out! http_fixture --hostile failed"
	exit 1
}
start_server
get /metrics
is "$code" 200 "/metrics of the hostile session"
has "$body" 'command="./prog \\xff\\xfe x\\x0d\ny \"q\" \\ \\xc3( \\xe2\\x82 \\xed\\xa0\\x80 \\x1b[31m é"}' \
	"invalid UTF-8 and control bytes as \\\\xNN, LF as \\n, quote and backslash escaped"
if command -v promtool >/dev/null 2>&1; then
	printf '%s\n' "$body" >"$tmp/metrics"
	out=$(promtool check metrics <"$tmp/metrics" 2>&1)
	is "$?" 0 "promtool check metrics accepts the scrape"
	hasnt "$out" "error" "... without a parsing error"
	[ -z "$out" ] || echo "$out" | sed 's/^/# promtool: /'
else
	for i in 1 2; do
		n_test=$((n_test + 1))
		echo "ok $n_test - # SKIP promtool is not installed (apt-get install prometheus)"
	done
fi
ok $(printf '%s' "$body" | iconv -f UTF-8 -t UTF-8 >/dev/null 2>&1; echo $?) "the scrape is valid UTF-8"
ok $(printf '%s' "$body" | LC_ALL=C grep -q "$(printf '\r')"; [ $? -eq 1 ]; echo $?) "... with no raw CR"
stop_server
done_testing
