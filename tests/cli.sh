#!/bin/sh
# Command-line basics of micad and micactl: --help and --version exit 0
# and print to stdout; an unknown option or command prints usage to
# stderr and exits 2.
n=0
check() {
	n=$((n + 1))
	if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fi
}
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

for prog in micad micactl; do
	bin="$top_builddir/$prog"
	"$bin" --help >"$tmp/out" 2>"$tmp/err"; rc=$?
	check "$prog --help exits 0" '[ $rc -eq 0 ]'
	check "$prog --help prints usage on stdout" 'grep -q "^Usage: $prog" "$tmp/out" && [ ! -s "$tmp/err" ]'
	"$bin" --version >"$tmp/out" 2>&1; rc=$?
	check "$prog --version exits 0 and names itself" '[ $rc -eq 0 ] && grep -q "^$prog [0-9]" "$tmp/out"'
	"$bin" --frobnicate >"$tmp/out" 2>"$tmp/err"; rc=$?
	check "$prog --frobnicate exits 2 with usage on stderr" \
		'[ $rc -eq 2 ] && grep -q "^Usage: $prog" "$tmp/err" && [ ! -s "$tmp/out" ]'
	"$bin" no-such-command >"$tmp/out" 2>"$tmp/err"; rc=$?
	check "$prog no-such-command exits 2 naming it" \
		'[ $rc -eq 2 ] && grep -q "unknown command .no-such-command." "$tmp/err"'
	"$bin" >"$tmp/out" 2>"$tmp/err"; rc=$?
	check "$prog without a command exits 2" '[ $rc -eq 2 ] && grep -q "no command given" "$tmp/err"'
done
"$top_builddir/micad" run --frobnicate >"$tmp/out" 2>"$tmp/err"; rc=$?
check "micad run --frobnicate exits 2" '[ $rc -eq 2 ]'
"$top_builddir/micad" run --help >"$tmp/out" 2>&1; rc=$?
check "micad run --help exits 0" '[ $rc -eq 0 ] && grep -qi "usage" "$tmp/out"'
echo "1..$n"
