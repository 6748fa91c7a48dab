#!/bin/sh
# micactl export --format folded and --format pprof on the profile fixture
# (tests/profile_fixture.c lists its stacks and counts): the folded text
# exactly, for the whole session, one thread and a range of intervals;
# the pprof file read back by `go tool pprof` (Debian golang-go): the
# hottest function and its flat share and value, per sample type, the
# thread labels, the locations' addresses and the mappings; the errors.
. "$top_srcdir/tests/http_lib.sh"

MICACTL="$top_builddir/micactl"
db=$tmp/profile.db
"$top_builddir/tests/profile_fixture" "$db" || {
	echo "Bail out! profile_fixture failed"
	exit 1
}

# export ARGS...: standard output in $out, standard error in $err, status in $rc
export_() {
	"$MICACTL" export --db "$db" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
}

# ---- folded ----
export_ 1 --format folded
is "$rc" 0 "folded: exit status 0"
is "$out" '_start;main 10
_start;main;Box<int&, "s">::operator<(Box const&) const 100
_start;main;compute;hot 550
_start;main;fib;fib;fib 100
_start;main;libfoo.so+0x1a2b;[unknown] 40
_start;main;other;hot 200' \
	"folded: one sorted line per stack of functions (hot's two offsets one line, recursion, module+offset, [unknown], C++ name as is)"

export_ 1 --format folded --thread 501
is "$out" '_start;main 5
_start;main;Box<int&, "s">::operator<(Box const&) const 80
_start;main;compute;hot 100
_start;main;fib;fib;fib 40
_start;main;libfoo.so+0x1a2b;[unknown] 15
_start;main;other;hot 100' "folded --thread 501: that thread's samples only"

export_ 1 --format folded --intervals 2..3
is "$out" '_start;main;compute;hot 150
_start;main;fib;fib;fib 30
_start;main;libfoo.so+0x1a2b;[unknown] 25
_start;main;other;hot 40' "folded --intervals 2..3: thread 500's intervals 2 and 3 (501 has none there)"
export_ 1 --format folded --tid 500 --from 1 --to 1 -o "$tmp/one.folded"
is "$rc:$out" "0:" "folded -o FILE: nothing on standard output"
is "$(cat "$tmp/one.folded")" '_start;main;Box<int&, "s">::operator<(Box const&) const 20
_start;main;compute;hot 200
_start;main;other;hot 60' "folded --tid 500 --from 1 --to 1 -o FILE"

# ---- errors ----
export_ 3 --format folded
is "$rc" 1 "a step-mode session: exit status 1"
has "$err" "session 3 was not sampled (engine 'step'): it has no call-stack profile" \
	"a step-mode session: says why there is no profile"
export_ 99 --format pprof -o "$tmp/x.pb.gz"
is "$rc" 1 "no session 99: exit status 1"
has "$err" "no session 99 in" "no session 99: says so"
export_ 1 --format folded --intervals 7..9
is "$rc:$err" "1:micactl: session 1 has no samples in intervals 7..9" "an empty range: says so"
export_ 1 --format folded --thread 4242
has "$rc:$err" "1:micactl: session 1 has no samples of thread 4242" "a thread without samples: says so"
export_ 1 --format flame
is "$rc" 2 "an unknown format: usage error"
has "$err" "not one of mica, csv, json, folded, pprof" "an unknown format: lists the formats"

# ---- pprof ----
export_ 1 --format pprof -o "$tmp/prof.pb.gz"
is "$rc:$out" "0:" "pprof -o FILE: exit status 0"
gzip -t "$tmp/prof.pb.gz" 2>/dev/null
ok $? "pprof: the file is gzip"
"$MICACTL" export --db "$db" 1 --format pprof >"$tmp/stdout.pb.gz" </dev/null
cmp -s "$tmp/prof.pb.gz" "$tmp/stdout.pb.gz"
ok $? "pprof to standard output (not a terminal): the same bytes"

if ! command -v go >/dev/null 2>&1; then
	ok 0 "# SKIP go tool pprof checks: go is not installed (apt-get install golang-go)"
	done_testing
fi
# pprof keeps fetched profiles under $HOME: keep them here.
export HOME="$tmp" PPROF_TMPDIR="$tmp"
pprof() {
	go tool pprof "$@" 2>"$tmp/pprof.err"
}

top=$(pprof -top "$tmp/prof.pb.gz")
first=$(printf '%s\n' "$top" | sed -n '/flat%/{n;p;q}' | tr -s ' ')
is "$first" " 750.75ms 75.00% 75.00% 750.75ms 75.00% hot" \
	"go tool pprof -top: hot first, 75% flat, 750 x 1.001001 ms of cpu-clock"
has "$top" "Type: cpu" "pprof: the default sample type is the weight (cpu)"
has "$top" "Total samples = 1001ms" "pprof: 1000 samples of 1.001001 ms"
has "$top" "10.01ms  1.00%   100%     1001ms   100%  main" "pprof: main 1% flat, 100% cumulative"
has "$top" "0     0%   100%   550.55ms 55.00%  compute" "pprof: compute 55% cumulative"
has "$top" "sampled cpu-clock at 999 Hz" "pprof: the session's note is a comment"

top=$(pprof -top -sample_index=samples "$tmp/prof.pb.gz")
first=$(printf '%s\n' "$top" | sed -n '/flat%/{n;p;q}' | tr -s ' ')
is "$first" " 750 75.00% 75.00% 750 75.00% hot" "pprof -sample_index=samples: 750 samples of hot"

tags=$(pprof -tags "$tmp/prof.pb.gz")
has "$tags" "660.7ms (66.00%): 500" "pprof -tags: thread 500's 660 samples"
has "$tags" "340.3ms (34.00%): 501" "pprof -tags: thread 501's 340 samples"

raw=$(pprof -raw "$tmp/prof.pb.gz")
has "$raw" "0x401305 M=1 hot /usr/bin/prof:0" "pprof -raw: a location's address, mapping, function and file"
has "$raw" "0x7f0000101a2b M=3 libfoo.so+0x1a2b /usr/lib/libfoo.so:0" "pprof -raw: a frame without symbol"
has "$raw" 'Box<int&, "s">::operator<(Box const&) const' "pprof -raw: the C++ name kept whole"
has "$raw" "1: 0x40102a/0x40151d/0x0 /usr/bin/prof  [FN]" \
	"pprof -raw: the executable's mapping spans its frames' addresses, has functions"
hasnt "$raw" "/[unknown]" "pprof -raw: no mapping for the unknown module"
is "$(cat "$tmp/pprof.err")" "" "go tool pprof: no warning"

export_ 1 --format pprof --thread 501 -o "$tmp/t501.pb.gz"
top=$(pprof -top -sample_index=samples "$tmp/t501.pb.gz")
has "$top" "Total samples = 340" "pprof --thread 501: 340 samples"

done_testing
