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
"$micactl" mca -mcpu=skylake --json=compact "$tmp/reg.s" > "$tmp/reg.json"
"$micactl" mca -mcpu=skylake --model=llvm --json -timeline -dispatch-stats "$tmp/reg.s" > "$tmp/llvm.json"
if command -v llvm-mca-14 > /dev/null; then
	llvm-mca-14 -mcpu=skylake --json -timeline -dispatch-stats "$tmp/reg.s" > "$tmp/ref.json"
	check "--json --model=llvm: llvm-mca-14's JSON byte for byte" 'cmp -s "$tmp/ref.json" "$tmp/llvm.json"'
fi
"$micactl" mca -mcpu=skylake --json "$tmp/reg.s" > "$tmp/def.json"
check "--json: llvm-mca's schema, the corrected model's fields added" 'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); r=d[\"CodeRegions\"]; assert [x[\"SummaryView\"][\"Instructions\"] for x in r]==[100,200]; assert r[0][\"Micad\"][\"Model\"]==\"corrected\"; assert d[\"TargetInfo\"][\"CPUName\"]==\"skylake\"" "$tmp/def.json"'
"$micactl" mca -mcpu=skylake "$tmp/reg.s" > "$tmp/reg.out"
check "regions: a header after a blank line, as llvm-mca prints it" '[ "$(sed -n 1,3p "$tmp/reg.out" | tr "\n" "|")" = "|[0] Code Region - one||" ] && grep -q "^\[1\] Code Region - two$" "$tmp/reg.out"'
check "regions: two JSON objects" '[ "$(grep -o total_cycles "$tmp/reg.json" | wc -l)" -eq 2 ]'
check "regions: JSON parses" 'python3 -c "import json,sys; a=json.load(open(sys.argv[1])); assert [x[\"instructions\"] for x in a]==[1,2]" "$tmp/reg.json"'

printf '4801d8\n4801d84801c3,123.0\n' > "$tmp/blocks.hex"
"$micactl" mca -mcpu=skylake --hex --json=compact "$tmp/blocks.hex" > "$tmp/hex.json"
check "--hex: one object per line" 'python3 -c "import json,sys; a=json.load(open(sys.argv[1])); assert [x[\"instructions\"] for x in a]==[1,2]" "$tmp/hex.json"'

printf '48 01 d8\n4801d8 48 01c3 # two adds\n' > "$tmp/spaced.hex"
"$micactl" mca -mcpu=skylake --hex --json=compact "$tmp/spaced.hex" > "$tmp/spaced.json"
check "--hex: bytes may be apart, # ends the line" 'python3 -c "import json,sys; a=json.load(open(sys.argv[1])); assert [x[\"instructions\"] for x in a]==[1,2]" "$tmp/spaced.json"'
printf '4801d8\n48 01 zz\n' > "$tmp/nothex.hex"
"$micactl" mca --hex "$tmp/nothex.hex" > /dev/null 2> "$tmp/err"; rc=$?
check "--hex: a non-hex character is an error naming line and column" '[ $rc -eq 1 ] && grep -q "line 2, column 7: .z. is not a hex digit" "$tmp/err"'
printf '4801d\n' > "$tmp/odd.hex"
"$micactl" mca --hex "$tmp/odd.hex" > /dev/null 2> "$tmp/err"; rc=$?
check "--hex: an odd number of digits is an error" '[ $rc -eq 1 ] && grep -q "line 1, column 5: odd number of hex digits" "$tmp/err"'

"$micactl" mca -mcpu=help > "$tmp/cpus" 2>&1; rc=$?
check "-mcpu=help: exit 0, every CPU llvm-mca-14 models, which are corrected" '[ $rc -eq 0 ] && [ "$(grep -c "^  [a-z]" "$tmp/cpus")" -eq 46 ] && grep -q "^  ivybridge       LLVM 14.s sandybridge model; corrected model" "$tmp/cpus" && grep -q "^  skx             LLVM 14.s skylake-avx512 model" "$tmp/cpus"'
"$micactl" mca -mcpu=pentium "$tmp/blocks.hex" > /dev/null 2> "$tmp/err"; rc=$?
check "-mcpu without an LLVM 14 model: exit 1, llvm-mca-14's message" '[ $rc -eq 1 ] && grep -qx "error: unable to find instruction-level scheduling information for target triple .x86_64-pc-linux-gnu. and cpu .pentium.." "$tmp/err"'
"$micactl" mca -mcpu=frob "$tmp/blocks.hex" > /dev/null 2> "$tmp/err"; rc=$?
check "unknown -mcpu: exit 1, llvm-mca-14's message twice" '[ $rc -eq 1 ] && [ "$(grep -cx "'"'"'frob'"'"' is not a recognized processor for this target (ignoring processor)" "$tmp/err")" -eq 2 ]'
printf 'mov %%rax, %%rbx\nfrobnicate %%rax\n' > "$tmp/bad.s"
"$micactl" mca "$tmp/bad.s" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "bad assembly: as llvm-mca-14, the line is left out and the rest analyzed (exit 0)" '[ $rc -eq 0 ] && grep -q "^Instructions:      100$" "$tmp/out"'
check "bad assembly: llvm-mca-14's message, file:line:col, the line and a caret" 'grep -qx "$tmp/bad.s:2:1: error: invalid instruction mnemonic .frobnicate." "$tmp/err" && grep -qx "frobnicate %rax" "$tmp/err" && grep -qx "\^~~~~~~~~~" "$tmp/err"'
printf 'nop\n# LLVM-MCA-BEGIN r\nadd %%rax, %%rbx\n\n  frobnicate %%rax\n# LLVM-MCA-END\n' | "$micactl" mca - > /dev/null 2> "$tmp/err"
check "bad assembly in a region: line and column of the whole input" 'grep -q "^<stdin>:5:3: error: invalid instruction mnemonic" "$tmp/err"'
printf 'mov rax, rbx\nfrobnicate eax\n' > "$tmp/badintel.s"
"$micactl" mca -x86-asm-syntax=intel "$tmp/badintel.s" > /dev/null 2> "$tmp/err"
check "bad Intel-syntax assembly: line 2, not 3" 'grep -q "^$tmp/badintel.s:2:1: error" "$tmp/err"'
printf 'frobnicate %%rax\n' > "$tmp/allbad.s"
"$micactl" mca "$tmp/allbad.s" > /dev/null 2> "$tmp/err"; rc=$?
check "nothing left to analyze: exit 1, llvm-mca-14's message" '[ $rc -eq 1 ] && grep -qx "error: no assembly instructions found." "$tmp/err"'
: > "$tmp/empty.s"
"$micactl" mca "$tmp/empty.s" > /dev/null 2> "$tmp/err"; rc=$?
check "empty input: exit 1 with a message" '[ $rc -eq 1 ] && grep -q "no assembly instructions" "$tmp/err"'
printf '4801d8d6\n' > "$tmp/undec.hex"
"$micactl" mca --hex "$tmp/undec.hex" > /dev/null 2> "$tmp/err"; rc=$?
check "undecodable bytes: exit 1 with offset" '[ $rc -eq 1 ] && grep -q "offset 3" "$tmp/err"'
printf 'mov rax, [rbx+8]\nadd rax, rcx\n' > "$tmp/intel.s"
"$micactl" mca -x86-asm-syntax=intel -mcpu=skylake --json=compact "$tmp/intel.s" > "$tmp/intel.json" 2>&1
check "Intel syntax input" 'grep -q "\"instructions\": 2" "$tmp/intel.json"'

# Options of the manual.
"$micactl" mca -mcpu=btver2 -iterations=300 -o "$tmp/report" "$tmp/dot.s" > "$tmp/stdout"; rc=$?
check "-o FILE: the report goes to FILE" '[ $rc -eq 0 ] && [ ! -s "$tmp/stdout" ] && grep -q "^Total Cycles:      611$" "$tmp/report"'
"$micactl" mca "$tmp/dot.s" > "$tmp/host" 2>&1; rc=$?
check "-mcpu defaults to the host's model" '[ $rc -eq 0 ] && grep -q "^Dispatch Width:" "$tmp/host"'
"$micactl" mca -march=aarch64 "$tmp/dot.s" > /dev/null 2> "$tmp/err"; rc=$?
check "-march other than x86-64: exit 1" '[ $rc -eq 1 ] && grep -q "x86-64" "$tmp/err"'
"$micactl" mca -mtriple=aarch64-linux-gnu "$tmp/dot.s" > /dev/null 2> "$tmp/err"; rc=$?
check "-mtriple other than x86_64: exit 1" '[ $rc -eq 1 ]'
"$micactl" mca -mtriple=x86_64-unknown-unknown -march=x86-64 -mcpu=btver2 -iterations=300 "$tmp/dot.s" > "$tmp/out2"
check "-mtriple=x86_64-unknown-unknown -march=x86-64 accepted" 'grep -q "^Total Cycles:      611$" "$tmp/out2"'
"$micactl" mca -timeline=maybe "$tmp/dot.s" > /dev/null 2> "$tmp/err"; rc=$?
check "a boolean option given a non-boolean: exit 1" '[ $rc -eq 1 ] && grep -q "boolean" "$tmp/err"'
"$micactl" mca -frobnicate "$tmp/dot.s" > /dev/null 2> "$tmp/err"; rc=$?
check "unknown option: exit 1, llvm-mca's words" '[ $rc -eq 1 ] && grep -q "Unknown command line argument .-frobnicate." "$tmp/err"'
"$micactl" mca -mcpu=pentium4 "$tmp/dot.s" > /dev/null 2> "$tmp/err"; rc=$?
check "unknown CPU: exit 1 naming it" '[ $rc -eq 1 ] && grep -q pentium4 "$tmp/err"'
printf 'vmulps %%ymm0, %%ymm1, %%ymm2\nvfmadd231ps %%ymm3, %%ymm4, %%ymm5\n' > "$tmp/fma.s"
"$micactl" mca -mcpu=btver2 "$tmp/fma.s" > /dev/null 2> "$tmp/err"; rc=$?
check "an instruction the CPU lacks: a warning naming it" '[ $rc -eq 0 ] && grep -q "warning.*vfmadd231ps" "$tmp/err"'

# The source text is what llvm-mca shows; directives' padding is not code.
printf '  vmulps    %%xmm0, %%xmm1, %%xmm2   # a comment\n.p2align 4\nlbl:\n\tvhaddps %%xmm2, %%xmm2, %%xmm3\n' > "$tmp/src.s"
"$micactl" mca -mcpu=skylake "$tmp/src.s" > "$tmp/src.out"
check "source text kept, tab after the mnemonic, comment dropped" 'grep -q "	vmulps	%xmm0, %xmm1, %xmm2$" "$tmp/src.out" || grep -q "  vmulps	%xmm0, %xmm1, %xmm2$" "$tmp/src.out"'
check "alignment padding is not analyzed" 'grep -q "^Instructions:      200$" "$tmp/src.out"'

# JSON carries every view asked for.
"$micactl" mca -mcpu=skylake --model=llvm -all-views --json=compact "$tmp/dot.s" > "$tmp/all.json"
check "JSON -all-views: every view, consistent" 'python3 - "$tmp/all.json" <<PY
import json, sys
o = json.load(open(sys.argv[1]))[0]
for k in ("instruction_info", "resource_pressure", "timeline", "dispatch_stats",
          "scheduler_stats", "retire_stats", "register_file_stats", "bottleneck_analysis"):
    assert k in o, k
assert len(o["timeline"]) == 10 * 3
assert sum(o["dispatch_stats"]["dispatched"].values()) == o["total_cycles"]
assert sum(o["retire_stats"]["retired"].values()) == o["total_cycles"]
assert len(o["resource_pressure"]["by_instruction"]) == 3
assert o["instruction_info"][0]["text"] == "vmulps\t%xmm0, %xmm1, %xmm2"
PY'

# The models and the two throughput notions.
printf '48b88877665544332211\n' > "$tmp/movabs.hex"
"$micactl" mca -mcpu=skylake --hex --json=compact "$tmp/movabs.hex" > "$tmp/u.json"
"$micactl" mca -mcpu=skylake --hex --json=compact --throughput=loop "$tmp/movabs.hex" > "$tmp/l.json"
check "--throughput=unrolled vs loop: 0.625 vs 1 cycle for a 10-byte instruction" 'python3 -c "
import json,sys
u=json.load(open(sys.argv[1]))[0]; l=json.load(open(sys.argv[2]))[0]
assert abs(u[\"throughput\"]-0.625)<0.02 and abs(l[\"throughput\"]-1.0)<0.02
assert u[\"throughput_mode\"]==\"unrolled\" and l[\"throughput_mode\"]==\"loop\"
" "$tmp/u.json" "$tmp/l.json"'
"$micactl" mca -mcpu=skylake --model=bogus "$tmp/dot.s" > /dev/null 2>&1; rc=$?
check "--model other than corrected/llvm: exit 1" '[ $rc -eq 1 ]'
printf '585b595a5e\n' > "$tmp/pops.hex"
"$micactl" mca -mcpu=skylake --hex "$tmp/pops.hex" > "$tmp/pops.out"
# 2.5 (loads) + the stack's 40 bytes a iteration of 9-cycle page misses
check "default model: five pops at 2.59 cycles per iteration" 'grep -q "^Throughput:        2.59 cycles per iteration" "$tmp/pops.out"'
"$micactl" mca -mcpu=skylake --hex -bottleneck-analysis "$tmp/pops.hex" > "$tmp/bn.out"
check "corrected model bottleneck analysis: ports bound 2.5 (loads)" 'grep -q "Execution ports           2.50  (SKLPort2, SKLPort3)" "$tmp/bn.out"'
# --jobs: regions analyzed by several threads, the output (messages
# included, in their place) that of one thread.  130 blocks of 1-4 of 13
# instructions: loads, stores, pushes, a divide, a fused pair.
python3 -c "
ins = ['4801d8', '488b07', '48890f', '50', '5b', '48f7f1', '4883c001', '480fafc3',
       'c5fc58c1', '4c8d0c48', '4839d8', '488b4c2408', '31c0']
for k in range(130):
    print(''.join(ins[(k * 7 + j * 5) % 13] for j in range(1 + k % 4)) + ('7405' if k % 9 == 0 else ''))
" > "$tmp/many.hex"
"$micactl" mca -mcpu=skylake --jobs=1 --hex --json=compact "$tmp/many.hex" > "$tmp/j1.json" 2>&1; rc1=$?
"$micactl" mca -mcpu=skylake --jobs=2 --hex --json=compact "$tmp/many.hex" > "$tmp/j2.json" 2>&1; rc2=$?
"$micactl" mca -mcpu=skylake --jobs=7 --hex --json=compact "$tmp/many.hex" > "$tmp/j7.json" 2>&1; rc7=$?
check "--jobs=1, 2, 7: the same JSON, 130 regions" '[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ $rc7 -eq 0 ] && cmp -s "$tmp/j1.json" "$tmp/j2.json" && cmp -s "$tmp/j1.json" "$tmp/j7.json" && python3 -c "import json,sys; assert len(json.load(open(sys.argv[1])))==130" "$tmp/j1.json"'
"$micactl" mca -mcpu=haswell --jobs=1 --hex -all-views "$tmp/many.hex" > "$tmp/j1.txt" 2>&1
"$micactl" mca -mcpu=haswell --hex -all-views "$tmp/many.hex" > "$tmp/j0.txt" 2>&1
"$micactl" mca -mcpu=haswell --model=llvm --jobs=1 --hex -all-views "$tmp/many.hex" > "$tmp/l1.txt" 2>&1
"$micactl" mca -mcpu=haswell --model=llvm --jobs=3 --hex -all-views "$tmp/many.hex" > "$tmp/l3.txt" 2>&1
check "--jobs: every view the same as one thread's (both models)" 'cmp -s "$tmp/j1.txt" "$tmp/j0.txt" && cmp -s "$tmp/l1.txt" "$tmp/l3.txt" && [ "$(grep -c "Code Region" "$tmp/j0.txt")" -eq 130 ]'
sed '90s/.*/0f04/' "$tmp/many.hex" > "$tmp/bad90.hex"
"$micactl" mca -mcpu=skylake --jobs=1 --hex "$tmp/bad90.hex" > "$tmp/b1.txt" 2>&1; rc1=$?
"$micactl" mca -mcpu=skylake --jobs=3 --hex "$tmp/bad90.hex" > "$tmp/b3.txt" 2>&1; rc3=$?
check "--jobs: bytes that do not decode in region 89 stop there, after regions 0-88" '[ $rc1 -eq 1 ] && [ $rc3 -eq 1 ] && cmp -s "$tmp/b1.txt" "$tmp/b3.txt" && [ "$(grep -c "Code Region" "$tmp/b3.txt")" -eq 89 ] && tail -1 "$tmp/b3.txt" | grep -q "region 89: bytes at offset 0 do not decode: 0f 04"'
sed '40s/.*/c4e27198c2/' "$tmp/many.hex" > "$tmp/fma40.hex"
"$micactl" mca -mcpu=btver2 --jobs=1 --hex "$tmp/fma40.hex" > "$tmp/f1.txt" 2>&1; rc1=$?
"$micactl" mca -mcpu=btver2 --jobs=2 --hex "$tmp/fma40.hex" > "$tmp/f2.txt" 2>&1; rc2=$?
check "--jobs: a warning comes before its own region's report" '[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && cmp -s "$tmp/f1.txt" "$tmp/f2.txt" && grep -B2 "^\[39\] Code Region" "$tmp/f2.txt" | head -1 | grep -q "warning: mca: region 39: -mcpu=btver2 has no data for .vfmadd"'
"$micactl" mca --jobs=65 --hex "$tmp/many.hex" > /dev/null 2> "$tmp/err"; rc=$?
check "--jobs above 64: exit 1 with the limit" '[ $rc -eq 1 ] && grep -q "jobs=65: at most 64" "$tmp/err"'
echo "1..$n"
