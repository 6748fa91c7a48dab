#!/bin/sh
# Every instruction of every BHive block maps to an LLVM opcode, and to the
# one llvm-mc names for the same bytes.  Prints TAP.
data=${BHIVE_DIR:-$top_srcdir/tests/data/bhive}
names=$top_builddir/tests/sched_map_names
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

if [ ! -r "$data/skl.csv" ]; then
	skip "BHive mapping" "no BHive data in $data"
	echo "1..$n"; exit 0
fi
cat "$data"/skl.csv "$data"/hsw.csv "$data"/ivb.csv | cut -d, -f1 | sort -u > "$tmp/blocks"
if "$names" < "$tmp/blocks" > "$tmp/mine" 2> "$tmp/summary"; then
	ok "every BHive instruction maps ($(cat "$tmp/summary"))"
else
	notok "unmapped BHive instructions ($(cat "$tmp/summary"))"
	grep -E 'UNMAPPED|UNDECODABLE' "$tmp/mine" | sort | uniq -c | sort -rn | sed 's/^/# /'
fi
if command -v llvm-mc-14 > /dev/null; then
	sed 's/../0x& /g' "$tmp/blocks" > "$tmp/bytes"
	llvm-mc-14 --disassemble -show-inst -triple=x86_64 "$tmp/bytes" 2>/dev/null |
		sed -n 's/.*<MCInst #[0-9]* \([A-Za-z0-9_]*\).*/\1/p' > "$tmp/ref"
	if cmp -s "$tmp/mine" "$tmp/ref"; then
		ok "names agree with llvm-mc-14 on all $(wc -l < "$tmp/ref") instructions"
	else
		notok "names differ from llvm-mc-14"
		diff "$tmp/mine" "$tmp/ref" | grep '^[<>]' | sort | uniq -c | sort -rn | head -20 | sed 's/^/# /'
	fi
else
	skip "names agree with llvm-mc-14" "llvm-mc-14 is not installed"
fi
echo "1..$n"
