#!/bin/sh
# The HTTP server's guards: Host header (DNS rebinding), access tokens
# (header, query, cookie exchange), per-uid visibility, read-only methods,
# path traversal in every spelling, static files only from the web root,
# malformed and oversize requests, bad parameters, and the listen-address
# rules.  After all of it the server still answers.
. "$top_srcdir/tests/http_lib.sh"

make_fixture
# A web root of our own with a symlink pointing out of it.
web=$tmp/web
mkdir -p "$web/sub"
cp "$top_srcdir/web/index.html" "$top_srcdir/web/session.html" "$web/"
echo 'body { }' >"$web/sub/a.css"
echo secret >"$tmp/secret.txt"
ln -s "$tmp/secret.txt" "$web/leak.txt"
ln -s "$tmp" "$web/dirleak"
start_server --web "$web" --host micad.example

# ---- Host header ----
get /api -H "Host: evil.example"
is "$code" 421 "foreign Host: 421"
get /api -H "Host: evil.example:$port"
is "$code" 421 "foreign Host with port: 421"
get /api -H "Host: 127.0.0.1.evil.example"
is "$code" 421 "loopback-looking prefix: 421"
get / -H "Host: evil.example"
is "$code" 421 "static files are guarded too"
get /api -H "Host: localhost:$port"
is "$code" 200 "Host localhost accepted"
get /api -H "Host: [::1]:$port"
is "$code" 200 "Host [::1] accepted"
get /api -H "Host: MICAD.example"
is "$code" 200 "a configured Host name accepted (case-insensitive)"
is "$(raw 'GET /api HTTP/1.0\r\nAuthorization: Bearer '"$tok"'\r\n\r\n')" "HTTP/1.1 421 Misdirected Request" \
	"no Host at all (HTTP/1.0): 421"
# The property, over every allowed name (the three loopback names and the
# configured one): each proper prefix and suffix of the name, the name
# with a character more at either end, and our port's prefixes and
# suffixes, bare, with our port and upper-cased, are refused.  The name
# itself is accepted in any case (host names are case-insensitive,
# RFC 3986 3.2.2; browsers send them lower-cased anyway).
near_names() {	# near_names PORT NAME...: the names next to NAME
	printf '%s\n' "$@" | awk -v port="$1" 'NR > 1 {
		n = $0; L = length(n)
		for (i = 1; i < L; i++) { v[substr(n, 1, i)]; v[substr(n, L - i + 1)] }
		v[n "x"]; v["x" n]; v[n "."]; v["." n]; v[n "-"]; v["0" n]
		for (i = 1; i < length(port); i++) {
			v[n ":" substr(port, 1, i)]; v[n ":" substr(port, length(port) - i + 1)]
		}
		v[n ":" port "0"]; v[n ":0" port]; v[n ":" port ":" port]; v[n ": " port]
	} END {
		for (x in v) { print x; print x ":" port; print toupper(x); print toupper(x) ":" port }
	}' | sort -u | grep -v -i -x -e "localhost" -e "127.0.0.1" -e "\[::1\]" -e "micad.example" \
		-e "localhost:$1" -e "127.0.0.1:$1" -e "\[::1\]:$1" -e "micad.example:$1"
}
near_names "$port" "$port" localhost 127.0.0.1 '[::1]' micad.example |
	each_header /api Host "Authorization: Bearer $tok" >"$tmp/each.res"
all_coded 421 "Host: each prefix, suffix, one-character extension of a name or port, any case: 421" \
	<"$tmp/each.res"
for n in localhost 127.0.0.1 '[::1]' micad.example; do
	printf '%s\n' "$n" "$n:$port" "$(echo "$n" | tr a-z A-Z)" "$(echo "$n" | tr a-z A-Z):$port" \
		"$(echo "$n" | sed 's/^./\U&/')"
done | each_header /api Host "Authorization: Bearer $tok" >"$tmp/each.res"
all_coded 200 "Host: each allowed name, with and without the port, in any case: accepted" <"$tmp/each.res"

# ---- tokens ----
getraw /api
is "$code" 401 "no token: 401"
is "$(header WWW-Authenticate)" 'Bearer realm="micad"' "401 names the Bearer scheme"
getraw /metrics
is "$code" 401 "/metrics without a token: 401"
getraw /api -H "Authorization: Bearer 0000000000000000000000000000000000000000000000000000000000000000"
is "$code" 401 "wrong token: 401"
getraw /api -H "Authorization: Bearer ${tok}0"
is "$code" 401 "token with an extra character: 401"
getraw /api -H "Authorization: Basic dXNlcjpwYXNz"
is "$code" 401 "another scheme: 401"
getraw "/api?token=$tok"
is "$code" 200 "token as ?token="
getraw /api -H "Cookie: a=b; micad_token_$port=$tok; c=d"
is "$code" 200 "token as cookie"
getraw "/api?token=bad" -H "Cookie: micad_token_$port=$tok"
is "$code" 401 "a wrong ?token= is not rescued by a cookie"

# Cookie exchange on HTML pages opened from the address bar (the
# same-origin rule and the cookie's name: tests/http_hardening.sh).
getraw "/?token=$tok" -H "Sec-Fetch-Site: none"
is "$code" 303 "HTML page with ?token=: redirect"
is "$(header Location)" "/" "redirect to the same page without the token"
set_cookie=$(header Set-Cookie)
is "$set_cookie" "micad_token_$port=$tok; Path=/; HttpOnly; SameSite=Strict" \
	"cookie is HttpOnly, SameSite=Strict"
getraw "/session.html?x=1&token=$tok&y=2" -H "Sec-Fetch-Site: none"
is "$(header Location)" "/session.html?x=1&y=2" "other query parameters are kept"
getraw "/session.html?token=nope" -H "Sec-Fetch-Site: none"
is "$code" 401 "HTML page with a wrong token: 401"
getraw "/session.html"
is "$code" 200 "static page without a token: served (no data in it)"
has "$body" '<script src="session.js" defer></script>' "pages load scripts from files only"
hasnt "$(grep -l '<script>' "$top_srcdir"/web/*.html)" "html" "no inline script in web/*.html"

# ---- who sees what ----
get /api/sessions/2
is "$code" 404 "uid 1000 asking for root's session: 404 (as if missing)"
get /api/sessions/2/intervals
is "$code" 404 "... and its intervals"
get /api/sessions/2/mgsim/counters
is "$code" 404 "... and its MGSim counters"
getraw /api/sessions/2 -H "Authorization: Bearer $rtok"
is "$code" 200 "root sees it"
getraw /api/sessions/1 -H "Authorization: Bearer $rtok"
is "$code" 200 "root sees uid 1000's session too"

# ---- methods ----
for m in POST PUT DELETE PATCH OPTIONS; do
	get /api/sessions -X "$m"
	is "$code" 405 "$m: 405"
done
is "$(header Allow)" "GET, HEAD" "405 carries Allow"
get /api/sessions -X POST -d '{"a":1}'
is "$code" 405 "POST with a body: 405"
is "$(raw 'BREW /api HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')" "HTTP/1.1 405 Method Not Allowed" \
	"unknown method: 405"

# ---- path traversal, in every spelling ----
for p in '/../etc/passwd' '/../../../../etc/passwd' '/%2e%2e/%2e%2e/etc/passwd' '/%2E%2E/etc/passwd' \
	'/.%2e/etc/passwd' '/sub/..%2f..%2fsecret.txt' '/sub%2fa.css' '/sub%2Fa.css' '/./index.html' \
	'/%2e/index.html' '/sub\a.css' '/sub%5ca.css' '/index.html%00.css' '/%00' '/a%0ab' \
	'/api/../api' '/api/%2e%2e/api' '/%zz' '/%2'; do
	get "$p"
	is "$code" 400 "traversal or bad path refused: $p"
done
# A raw NUL byte: libmicrohttpd cuts the target there, so what follows it
# is never seen (here "/../index.html" would name a real file).
is "$(raw 'GET /nope\0/../index.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')" "HTTP/1.1 404 Not Found" \
	"raw NUL in the request target: nothing after it is reached"

# ---- static files only from the web root ----
getraw /
is "$code" 200 "/ serves index.html"
is "$(header Content-Type)" "text/html; charset=utf-8" "HTML content type"
is "$(header Content-Security-Policy)" "default-src 'self'; frame-ancestors 'none'" "static files: CSP"
getraw /sub/a.css
is "$code" 200 "file in a subdirectory"
is "$(header Content-Type)" "text/css; charset=utf-8" "CSS content type"
getraw /leak.txt
is "$code" 404 "symlink to a file outside the root: 404"
hasnt "$body" secret "... and its content is not served"
getraw /dirleak/secret.txt
is "$code" 404 "symlinked directory leading outside: 404"
getraw /sub
is "$code" 404 "a directory is not a file: 404"
getraw /nope.html
is "$code" 404 "missing file: 404"

# ---- malformed and oversize requests ----
# libmicrohttpd drops a request line it cannot parse without an answer.
got=$(raw 'GARBAGE\r\n\r\n')
ok $(case $got in "HTTP/1.1 400"*|closed) echo 0 ;; *) echo 1 ;; esac) \
	"garbage request line: 400 or closed (got $got)"
is "$(raw 'GET /api HTTP/1.1\r\n\r\n' | cut -c1-12)" "HTTP/1.1 400" "HTTP/1.1 without Host: 400"
# Past the 128 KiB of a connection (longer than one argument may be, so
# read from a file and stdin).
big=$(head -c 140000 /dev/zero | tr '\0' a)
printf 'X-Big: %s\n' "$big" >"$tmp/big-header"
get /api -H "@$tmp/big-header"
is "$code" 431 "oversize header: 431"
got=$(printf 'GET /api?x=%s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n' "$big" | raw_stdin)
ok $(case $got in "HTTP/1.1 414"*|"HTTP/1.1 431"*) echo 0 ;; *) echo 1 ;; esac) \
	"oversize request target: 414 or 431 (got $got)"

# ---- bad parameters ----
for q in 'sessions?limit=abc' 'sessions?limit=-1' 'sessions?limit=100000' 'sessions?offset=1e3' \
	'sessions?state=zombie' 'sessions/1/intervals?tid=x' 'sessions/1/intervals?from=5&to=1' \
	'sessions/1/intervals?analysis=ilp,bogus' 'sessions/1/views/ilp_per_window?format=xml' \
	'sessions/1/series' 'sessions/1/mgsim/mmio?addr=' 'sessions/1/mgsim/mmio?addr=0x10&size=x' \
	'sessions/1/mgsim/counters?since=100'; do
	get "/api/$q"
	is "$code" 400 "bad parameter: /api/$q"
done
for q in 'nope' 'sessions/99' 'sessions/abc' 'sessions/99999999999999999999' 'sessions/1/nope' \
	'sessions/1/views/nope' 'sessions/1/mgsim/nope' 'sessions/1/mgsim/counters/99' \
	'sessions/1/a/b/c/d/e/f/g/h/i/j/k'; do
	get "/api/$q"
	is "$code" 404 "unknown: /api/$q"
done
has "$body" '"error":{"status":404,' "errors are JSON"

# The server survived all of it.
get /api
is "$code" 200 "still answering"
stop_server
is "$server_status" 0 "clean stop"

# ---- listen addresses ----
out=$("$top_builddir/tests/http_serve" --db "$db" --listen 0.0.0.0:0 2>&1)
ok $([ $? -ne 0 ]; echo $?) "a non-loopback address without --allow-remote is refused"
has "$out" "not loopback" "... and says why"
"$top_builddir/tests/http_serve" --db "$db" --listen 127.0.0.1:bad >/dev/null 2>&1
ok $([ $? -ne 0 ]; echo $?) "a malformed listen address is refused"
rm -f "$tmp/info"
"$top_builddir/tests/http_serve" --db "$db" --listen 0.0.0.0:0 --allow-remote --info "$tmp/info" \
	2>"$tmp/remote.err" &
server_pid=$!
wait_until 300 "the server to write its info file" info_or_dead
has "$(cat "$tmp/remote.err")" "warning: HTTP server listens on non-loopback address 0.0.0.0" \
	"--allow-remote: starts with a warning"
stop_server

if [ -r /proc/net/if_inet6 ] && grep -q '^0\{31\}1 ' /proc/net/if_inet6; then
	rm -f "$tmp/info"
	"$top_builddir/tests/http_serve" --db "$db" --listen '[::1]:0' --uid 1000 --info "$tmp/info" \
		2>"$tmp/server.err" &
	server_pid=$!
	wait_until 300 "the server to write its info file" info_or_dead
	p6=$(sed -n 's/^port //p' "$tmp/info")
	t6=$(sed -n 's/^token 1000 //p' "$tmp/info")
	c6=$(curl -sS -g -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $t6" "http://[::1]:$p6/api")
	is "$c6" 200 "IPv6 loopback [::1]"
	has "$(sed -n 's/^url 1000 //p' "$tmp/info")" "http://[::1]:$p6/?token=" "the URL names [::1]"
	stop_server
else
	for i in 1 2; do
		n_test=$((n_test + 1))
		echo "ok $n_test - # SKIP no IPv6 loopback on this machine"
	done
fi
done_testing
