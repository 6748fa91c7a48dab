# Compare micad's event dump (the first file, --dump-events) with valgrind
# --tool=lackey --trace-mem=yes's log (the second), instruction by
# instruction: the same pc, and the same data accesses (kind, address,
# size).  Prints the differences (at most 20) and "compared N M" (N
# instructions, M of them with their accesses compared); exits 1 if any.
#
# What the two say differently by construction, evened out here:
#  - valgrind runs a REP string instruction as a loop with one more pass
#    when the count reaches zero: that pass (the pc again, no access) is
#    not an instruction;
#  - micad reports a zero-count REP's operands (MICA's phantom access,
#    flagged p), valgrind does not access them;
#  - a read and a write of one address and size in one instruction is
#    lackey's "M" (modify);
#  - VEX does some instructions its own way: xchg with memory as a load and
#    a compare-and-swap (lackey: L then M), bt with two registers by
#    storing the register below the stack pointer and loading a byte of it
#    (S then L 1), and xsave/fxsave-like instructions as one store per
#    component (micad: the whole area, more than 64 bytes): these are not
#    accesses of the instruction and are left out.
function flush_l() {
	if (lpc == "")
		return
	# S a n, L a 1: bt's spill; L a n, M a n: xchg's extra load
	k = ""
	for (x = 0; x < ln; x++) {
		if (lk[x] == "S" && x + 1 < ln && lk[x+1] == "L" && la[x+1] == la[x] && ls[x+1] == 1) { x++; continue }
		if (lk[x] == "L" && x + 1 < ln && lk[x+1] == "M" && la[x+1] == la[x] && ls[x+1] == ls[x]) continue
		k = k " " lk[x] la[x] ":" ls[x]
	}
	n++
	Lpc[n] = lpc
	Lacc[n] = k
	lpc = ""
	ln = 0
}
function norm(h) { sub(/^0+/, "", h); return h == "" ? "0" : h }
FNR == NR {
	# micad: tid pc next flags rep accesses...
	m++
	Mpc[m] = $2
	acc = ""
	big = 0
	for (i = 6; i <= NF; i++) {
		if ($i ~ /p$/)
			continue
		split(substr($i, 3), a, ":")
		if (a[2] + 0 > 64)
			big = 1
		t = substr($i, 1, 1) == "r" ? "L" : "S"
		if (t == "L" && i + 1 <= NF && $(i+1) == "w=" a[1] ":" a[2]) {
			t = "M"
			i++
		}
		acc = acc " " t a[1] ":" a[2]
	}
	Macc[m] = acc
	Mbig[m] = big
	next
}
/^I / {
	flush_l()
	split($2, a, ",")
	lpc = norm(a[1])
	next
}
/^ [LSM] / {
	split($2, a, ",")
	lk[ln] = $1
	la[ln] = norm(a[1])
	ls[ln] = a[2] + 0
	ln++
}
END {
	flush_l()
	j = 1
	bad = 0
	data = 0
	for (i = 1; i <= m; i++) {
		while (j <= n && j > 1 && Lpc[j] == Lpc[j-1] && Lacc[j] == "" && Lpc[j] != Mpc[i])
			j++
		if (j > n || Lpc[j] != Mpc[i]) {
			if (bad++ < 20)
				printf "instruction %d: micad %s, lackey %s\n", i, Mpc[i], j <= n ? Lpc[j] : "(end)"
			exit 1
		}
		if (!Mbig[i]) {
			data++
			if (Macc[i] != Lacc[j] && bad++ < 20)
				printf "instruction %d at %s: micad%s, lackey%s\n", i, Mpc[i], Macc[i], Lacc[j]
		}
		j++
	}
	while (j <= n && Lpc[j] == Lpc[j-1] && Lacc[j] == "")
		j++
	if (j <= n) {
		printf "lackey has %d more instructions, from %s\n", n - j + 1, Lpc[j]
		bad++
	}
	printf "compared %d %d\n", m, data
	exit bad > 0
}
