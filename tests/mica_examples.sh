#!/bin/sh
# Every worked example of spec mica.md (each "Run:" line): micad replay of
# the trace with that configuration must write exactly the expected bytes.
# The table is tests/mica/examples.list; prints TAP.

: "${top_srcdir:=..}" "${top_builddir:=..}"
dir="$top_srcdir/tests/mica"
micad="$top_builddir/micad"
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

n=0
fail=0
while read -r name trace file; do
	case "$name" in ''|'#'*) continue ;; esac
	n=$((n + 1))
	out="$tmp/$name"
	mkdir -p "$out"
	if ! "$micad" replay -q -c "$dir/$name.conf" --mica-out "$out" \
			"$dir/$trace.trace" > "$out.log" 2>&1; then
		echo "not ok $n - $name: $file (micad replay failed)"
		sed 's/^/# /' "$out.log"
		fail=1
	elif cmp -s "$out/$file" "$dir/$name.$file"; then
		echo "ok $n - $name: $file"
	else
		echo "not ok $n - $name: $file differs"
		printf '# want: '; od -c "$dir/$name.$file" | head -5 | sed '2,$s/^/# /'
		printf '# got:  '; od -c "$out/$file" 2>&1 | head -5 | sed '2,$s/^/# /'
		fail=1
	fi
done < "$dir/examples.list"
echo "1..$n"
exit $fail
