#!/bin/sh
# micactl mca's input forms, regions, JSON and error exits.  Prints TAP.
micactl=$top_builddir/micactl
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
n=0
check() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fi; }

printf 'vmulps %%xmm0, %%xmm1, %%xmm2\nvhaddps %%xmm2, %%xmm2, %%xmm3\nvhaddps %%xmm3, %%xmm3, %%xmm4\n' > "$tmp/dot.s"
"$micactl" mca -mcpu=btver2 -iterations=300 "$tmp/dot.s" > "$tmp/out" 2>&1; rc=$?
check "dot-product: exit 0" '[ $rc -eq 0 ]'
check "dot-product: 611 total cycles" 'grep -q "^Total Cycles:      611$" "$tmp/out"'
check "dot-product: block rthroughput 2.0" 'grep -q "^Block RThroughput: 2.0$" "$tmp/out"'
check "dot-product: instruction info row" 'grep -q "^ 1      2     1.00                        vmulps" "$tmp/out"'
check "dot-product: pressure per iteration" 'grep -q "^ -      -      -     2.00   1.00   2.00   1.00 " "$tmp/out"'
"$micactl" mca -mcpu=btver2 -iterations=3 -timeline "$tmp/dot.s" > "$tmp/tl"
check "timeline row [0,1]" 'grep -q "^\[0,1\]     D==eeeeER" "$tmp/tl"'

printf 'mov (%%rdi), %%rax\n# LLVM-MCA-BEGIN one\nadd %%rax, %%rbx\n# LLVM-MCA-END\n# LLVM-MCA-BEGIN two\nimul %%rbx, %%rcx\nimul %%rcx, %%rdx\n# LLVM-MCA-END\n' > "$tmp/reg.s"
"$micactl" mca -mcpu=skylake --json "$tmp/reg.s" > "$tmp/reg.json"
check "regions: two JSON objects" '[ "$(grep -o total_cycles "$tmp/reg.json" | wc -l)" -eq 2 ]'
check "regions: JSON parses" 'python3 -c "import json,sys; a=json.load(open(sys.argv[1])); assert [x[\"instructions\"] for x in a]==[1,2]" "$tmp/reg.json"'

printf '4801d8\n4801d84801c3,123.0\n' > "$tmp/blocks.hex"
"$micactl" mca -mcpu=skylake --hex --json "$tmp/blocks.hex" > "$tmp/hex.json"
check "--hex: one object per line" 'python3 -c "import json,sys; a=json.load(open(sys.argv[1])); assert [x[\"instructions\"] for x in a]==[1,2]" "$tmp/hex.json"'

printf 'mov %%rax, %%rbx\nfrobnicate %%rax\n' > "$tmp/bad.s"
"$micactl" mca "$tmp/bad.s" > /dev/null 2> "$tmp/err"; rc=$?
check "bad assembly: exit 1" '[ $rc -eq 1 ]'
check "bad assembly: assembler message" 'grep -q "frobnicate" "$tmp/err"'
: > "$tmp/empty.s"
"$micactl" mca "$tmp/empty.s" > /dev/null 2> "$tmp/err"; rc=$?
check "empty input: exit 1 with a message" '[ $rc -eq 1 ] && grep -q "no instructions" "$tmp/err"'
printf '4801d8d6\n' > "$tmp/undec.hex"
"$micactl" mca --hex "$tmp/undec.hex" > /dev/null 2> "$tmp/err"; rc=$?
check "undecodable bytes: exit 1 with offset" '[ $rc -eq 1 ] && grep -q "offset 3" "$tmp/err"'
printf 'mov rax, [rbx+8]\nadd rax, rcx\n' > "$tmp/intel.s"
"$micactl" mca -x86-asm-syntax=intel -mcpu=skylake --json "$tmp/intel.s" > "$tmp/intel.json" 2>&1
check "Intel syntax input" 'grep -q "\"instructions\": 2" "$tmp/intel.json"'
echo "1..$n"
