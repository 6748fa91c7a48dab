# Shared by the HTTP tests: TAP helpers, the fixture database and a
# server started with tests/http_serve on a free loopback port.
# Sourced; needs $top_srcdir and $top_builddir.

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
n_test=0
n_fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/micad-http.XXXXXX")
server_pid=
other_pids=	# servers a test started besides $server_pid

cleanup() {
	for p in $server_pid $other_pids; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
. "$top_srcdir/tests/wait.sh"

ok() {	# ok CONDITION-STATUS DESCRIPTION
	n_test=$((n_test + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n_test - $2"
	else
		echo "not ok $n_test - $2"
		n_fail=$((n_fail + 1))
	fi
}

is() {	# is GOT WANT DESCRIPTION
	if [ "$1" = "$2" ]; then
		ok 0 "$3"
	else
		ok 1 "$3"
		echo "#   got:  $1" | head -c 2000
		echo
		echo "#   want: $2"
	fi
}

has() {	# has HAYSTACK NEEDLE DESCRIPTION
	case $1 in
	*"$2"*) ok 0 "$3" ;;
	*)	ok 1 "$3"
		echo "#   wanted to find: $2"
		echo "#   in: $1" | head -c 2000
		echo ;;
	esac
}

hasnt() {	# hasnt HAYSTACK NEEDLE DESCRIPTION
	case $1 in
	*"$2"*) ok 1 "$3"; echo "#   found: $2" ;;
	*)	ok 0 "$3" ;;
	esac
}

skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}

done_testing() {
	echo "1..$n_test"
	[ "$n_fail" -eq 0 ]
	exit $?
}

command -v curl >/dev/null 2>&1 || skip_all "curl is not installed (apt-get install curl)"

# make_fixture: the hand-checked database (tests/http_fixture.c).
make_fixture() {
	db=$tmp/results.db
	"$top_builddir/tests/http_fixture" "$db" || {
		echo "Bail out! http_fixture failed"
		exit 1
	}
}

# info_or_dead: the server wrote its info file (it listens), or died
info_or_dead() {
	[ -f "$tmp/info" ] || ! kill -0 "$server_pid" 2>/dev/null
}

# start_server [ARGS...]: serve $db; sets port, tok (uid 1000), rtok (root).
start_server() {
	rm -f "$tmp/info"
	"$top_builddir/tests/http_serve" --db "$db" --listen 127.0.0.1:0 --uid 1000 --uid 0 \
		--info "$tmp/info" "$@" 2>"$tmp/server.err" &
	server_pid=$!
	# Wait for the info file (the server writes it once it listens), or
	# for the server to die.
	wait_until 300 "the server to write its info file" info_or_dead
	if [ ! -f "$tmp/info" ]; then
		echo "Bail out! http_serve did not start: $(cat "$tmp/server.err")"
		exit 1
	fi
	port=$(sed -n 's/^port //p' "$tmp/info")
	tok=$(sed -n 's/^token 1000 //p' "$tmp/info")
	rtok=$(sed -n 's/^token 0 //p' "$tmp/info")
	base=http://127.0.0.1:$port
}

stop_server() {
	kill "$server_pid"
	wait "$server_pid"
	server_status=$?
	server_pid=
	log=$(cat "$tmp/server.err" 2>/dev/null)
	hasnt "$log" "Sanitizer" "no sanitizer report from the server"
	hasnt "$log" "runtime error" "no undefined behaviour reported by the server"
	case $log in
	*Sanitizer* | *"runtime error"*)
		printf '%s\n' "$log" | grep -A 30 -m 1 'Sanitizer\|runtime error' | sed 's/^/#   /' ;;
	esac
}

# get PATH [CURL-ARGS...]: body in $body, status in $code, headers in
# $tmp/headers.  Token of uid 1000 unless the caller passes its own
# Authorization (use getraw for none).
get() {
	p=$1
	shift
	getraw "$p" -H "Authorization: Bearer $tok" "$@"
}

getraw() {
	p=$1
	shift
	code=$(curl -sS --max-time 20 --path-as-is -o "$tmp/body" -D "$tmp/headers" \
		-w '%{http_code}' "$@" "$base$p" 2>"$tmp/curl.err") ||
		code="curl-failed: $(cat "$tmp/curl.err")"
	body=$(cat "$tmp/body" 2>/dev/null)
}

header() {	# header NAME: the value of a response header
	tr -d '\r' <"$tmp/headers" | sed -n "s/^$1: //Ip" | head -1
}

# each_header PATH NAME [HEADER...]: one request to PATH for each line of
# stdin, with the header "NAME: LINE" (and the HEADERs), all from one
# curl; prints "CODE LINE" per line, in order.  For properties checked
# over many values (every position of a token, every prefix of a name).
each_header() {
	each_request "$@"
}

# each_path [HEADER...]: the same with each line of stdin the path.
each_path() {
	each_request "" "" "$@"
}

each_request() {
	p=$1 name=$2
	shift 2
	cat >"$tmp/each.values"
	awk -v base="$base" -v p="$p" -v name="$name" -v n_extra=$# '
		BEGIN { for (i = 1; i <= n_extra; i++) extra[i] = ARGV[i]; ARGC = 1 }
		{
			if (NR > 1) print "next"
			if (name == "") {
				printf "url = \"%s%s\"\n", base, $0
			} else {
				printf "url = \"%s%s\"\nheader = \"%s: %s\"\n", base, p, name, $0
			}
			for (i = 1; i <= n_extra; i++) printf "header = \"%s\"\n", extra[i]
			print "output = \"/dev/null\""
			print "write-out = \"%{http_code}\\n\""
			print "path-as-is"
			print "max-time = 20"
		}' "$@" <"$tmp/each.values" >"$tmp/each.curl"
	curl -sS -K "$tmp/each.curl" >"$tmp/each.codes" 2>"$tmp/curl.err"
	paste -d ' ' "$tmp/each.codes" "$tmp/each.values"
}

# all_coded CODE DESCRIPTION <FILE: ok if every line of each_header's
# output has CODE (and there is one); the others are listed.  (Not at the
# end of a pipeline: the count of tests would stay in its subshell.)
all_coded() {
	cat >"$tmp/each.out"
	n=$(wc -l <"$tmp/each.out" | tr -d ' ')
	awk -v c="$1" '$1 != c' "$tmp/each.out" >"$tmp/each.bad"
	[ "$n" -gt 0 ] && [ ! -s "$tmp/each.bad" ]
	ok $? "$2 ($n requests)"
	head -n 10 "$tmp/each.bad" | sed "s/^/#   not $1: /"
}

# raw REQUEST-BYTES (\r \n \0 escapes): send them as they are, print the
# status line ("closed" if none came).
raw() {
	"$top_builddir/tests/http_raw" "$port" "$1"
}

# raw_stdin: the same with the request's bytes read from stdin as they are.
raw_stdin() {
	"$top_builddir/tests/http_raw" "$port" -
}
