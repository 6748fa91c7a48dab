#!/bin/sh
# The database's views against numbers computed by hand from spec mica.md's
# worked examples and its "Conversion" paragraphs: each example's trace is
# replayed into a database (micad replay --db), then every view is queried
# (micactl query, cross-checked with the sqlite3 shell when there is one).
. "$top_srcdir/tests/tracer_lib.sh"

MICACTL="$top_builddir/micactl"
dir="$top_srcdir/tests/mica"
DB="$TMP/views.db"

q() {
	"$MICACTL" query --db "$DB" --format csv "$1" | tail -n +2 | tr '\n' ' ' | sed 's/ $//'
}

# replay NAME TRACE: prints the new session's id
replay() {
	"$MICAD" replay -q --db "$DB" -c "$dir/$1.conf" "$dir/$2.trace" > /dev/null || echo 0
	q 'SELECT max(id) FROM session'
}

A=$(replay ILP-5 ilp5)		# ilp, full: "40 9 0 0 0 "
B=$(replay IT-1 it1)		# itypes, full: H 12, E 14, g0..g11 "6 5 3 4 0 1 0 3 0 1 1 1", catch-all 2
C=$(replay IT-2 it1)		# itypes, S = 5: three intervals
D=$(replay PPM-2 ppm2)		# ppm: "2 2 3 3 2 2 3 3 2 2 3 3 6 1 3", E = 6
E=$(replay REG-1 reg1)		# reg: "10 2 3 5 2 4 5 5 5 5 5", E = 5
F=$(replay STR-1 str1)		# stride: the 30 numbers of STR-1
G=$(replay MF-1 mf1)		# memfootprint: "4 2 4 2", 64-byte blocks, 4 KiB pages
G3=$(replay MF-3 mf1)		# memfootprint: "5 3 5 3", 16-byte blocks, 256-byte pages
H=$(replay MSD-1 msd1)		# memstackdist: "10 5 2 2 1 0 ... 0"
H2=$(replay MSD-2 msd1)		# memstackdist, S = 5: "5 4 1 0 ..." then "5 1 1 2 1 0 ..."
is "$(q 'SELECT count(*) FROM session')" 10 "ten sessions replayed"

# ILP_W = E / cycles_W (§3.1): 40 / 9; windows that never filled: NULL.
is "$(q "SELECT printf('%.6f', ilp) FROM ilp_per_window WHERE session_id = $A AND window = 32")" \
	"4.444444" "ilp_per_window: 40 instructions / 9 cycles, window 32"
is "$(q "SELECT count(*) FROM ilp_per_window WHERE session_id = $A AND window > 32 AND ilp IS NULL")" 3 \
	"ilp_per_window: 0 cycles gives NULL, not a division by zero"

# fraction = n_g / E (§3.2): E = 14.
is "$(q "SELECT grp_name || '=' || printf('%.6f', fraction) FROM instruction_mix WHERE session_id = $B AND grp IN (0, 9, 11, 12) ORDER BY grp")" \
	"mem_read=0.428571 misc=0.071429 reg_transfer=0.071429 other=0.142857" \
	"instruction_mix: 6/14, 1/14, 1/14, and the catch-all 2/14"
is "$(q "SELECT sum(count) FROM instruction_mix WHERE session_id = $B AND grp_name IN ('control', 'string')")" 6 \
	"instruction_mix: control 3 + string 3"
# IT-2's intervals: "5 1 2 0 4 ...", "5 1 0 2 0 ...", "4 4 3 1 0 0 0 0 3 ..."
is "$(q "SELECT interval || ':' || ins FROM interval i JOIN (SELECT DISTINCT session_id, tid, interval FROM instruction_mix) m ON m.session_id = i.session_id AND m.interval = i.idx WHERE i.session_id = $C ORDER BY i.idx")" \
	"0:5 1:5 2:4" "instruction_mix, interval mode: three intervals of E 5, 5, 4"
is "$(q "SELECT printf('%.2f', fraction) FROM instruction_mix WHERE session_id = $C AND interval = 2 AND grp_name IN ('mem_read', 'string') ORDER BY grp")" \
	"1.00 0.75" "instruction_mix, last interval: mem_read 4/4, string 3/4"
is "$(q "SELECT printf('%.1f', fraction) FROM instruction_mix WHERE session_id = $C AND interval = 0 AND grp_name = 'mem_write'")" \
	"0.4" "instruction_mix, first interval: mem_write 2/5"

# rate = misses / B, mpki = 1000 misses / E, taken and transition rates (§3.3).
is "$(q "SELECT organization || history || '=' || printf('%.6f', rate) FROM misprediction_rate WHERE session_id = $D AND history IN (4, 12) AND organization IN ('GAg', 'GAs') ORDER BY history, organization")" \
	"GAg4=0.333333 GAs4=0.500000 GAg12=0.333333 GAs12=0.500000" \
	"misprediction_rate per predictor and history length: 2/6, 3/6"
is "$(q "SELECT printf('%.3f', mpki) FROM misprediction_rate WHERE session_id = $D AND organization = 'PAs' AND history = 8")" \
	"500.000" "misprediction_rate: MPKI 1000 x 3 / 6"
is "$(q "SELECT count(*) FROM misprediction_rate WHERE session_id = $D")" 12 "twelve predictors"
is "$(q "SELECT printf('%.6f', taken_rate) || ' ' || printf('%.6f', transition_rate) FROM branch_behaviour WHERE session_id = $D")" \
	"0.500000 0.166667" "branch_behaviour: folded taken 3/6, transitions 1/6"

# avg operands = totOps / E, degree of use = totUses / nVals, P(d <= D) =
# c_D / nReads (§3.4).
is "$(q "SELECT printf('%.2f %.2f', avg_operands, avg_degree_of_use) FROM register_traffic WHERE session_id = $E")" \
	"2.00 1.50" "register_traffic: 10/5 operands, 3/2 uses per value"
is "$(q "SELECT distance || '=' || printf('%.1f', probability) FROM dependency_distance_cdf WHERE session_id = $E ORDER BY distance")" \
	"1=0.4 2=0.8 4=1.0 8=1.0 16=1.0 32=1.0 64=1.0" \
	"dependency_distance_cdf: 2/5, 4/5, then 5/5"

# P(stride <= D) = count / nR or nW (§3.5); STR-1: nR 6, nW 2.
is "$(q "SELECT kind || le || '=' || printf('%.6f', probability) FROM stride_cdf WHERE session_id = $F AND ((kind = 'local_read' AND le = 4096) OR (kind = 'global_read' AND le = 8) OR (kind = 'local_write' AND le = 0) OR (kind = 'global_write' AND le = 8)) ORDER BY kind, le")" \
	"global_read8=0.666667 global_write8=0.500000 local_read4096=0.500000 local_write0=0.000000" \
	"stride_cdf: 4/6, 1/2, 3/6, 0/2"
is "$(q "SELECT count(*) || ' ' || sum(accesses) FROM stride_cdf WHERE session_id = $F AND kind LIKE '%write'")" \
	"14 28" "stride_cdf: 14 write rows over 2 writes each"

# Bytes = blocks << block_size, pages << page_size (§3.6).
is "$(q "SELECT data_block_bytes || ' ' || data_page_bytes || ' ' || insn_block_bytes || ' ' || insn_page_bytes FROM footprint_bytes WHERE session_id = $G")" \
	"256 8192 256 8192" "footprint_bytes: 4 x 64, 2 x 4096"
is "$(q "SELECT data_block_bytes || ' ' || data_page_bytes || ' ' || insn_block_bytes || ' ' || insn_page_bytes FROM footprint_bytes WHERE session_id = $G3")" \
	"80 768 80 768" "footprint_bytes with block_size 4, page_size 8: 5 x 16, 3 x 256"

# fraction = count / refs, the CDF summed over buckets (§3.7).
is "$(q "SELECT bucket || '[' || lo || '..' || coalesce(hi, 'inf') || ')' || printf('%.1f/%.1f', fraction, cdf) FROM reuse_distance WHERE session_id = $H AND bucket IN (0, 1, 2, 3, 18) ORDER BY bucket")" \
	"0[0..2)0.2/0.2 1[2..4)0.2/0.4 2[4..8)0.1/0.5 3[8..16)0.0/0.5 18[262144..inf)0.0/0.5" \
	"reuse_distance: fractions 2/10, 2/10, 1/10 and their CDF"
is "$(q "SELECT refs || ' ' || cold || ' ' || printf('%.1f', fraction) FROM cold_references WHERE session_id = $H")" \
	"10 5 0.5" "cold_references: 5 of 10"
is "$(q "SELECT interval || ':' || CASE WHEN fraction IS NULL THEN 'NULL' ELSE printf('%.1f', fraction) END FROM cold_references WHERE session_id = $H2 ORDER BY interval")" \
	"0:0.8 1:0.2 2:NULL" "cold_references per interval: 4/5, 1/5, and NULL for an empty interval"

# The long view.
is "$(q "SELECT metric || '=' || printf('%.6f', value) FROM metric WHERE (session_id = $A AND metric = 'ilp_32') OR (session_id = $B AND metric = 'mix_other') OR (session_id = $D AND metric IN ('mispredict_GAs_12', 'mpki_GAg_4', 'taken_rate')) OR (session_id = $E AND metric IN ('avg_degree_of_use', 'dependency_distance_le_2')) OR (session_id = $F AND metric = 'stride_global_read_le_8') OR (session_id = $G AND metric = 'data_footprint_bytes') OR (session_id = $H AND metric IN ('reuse_cdf_2', 'reuse_cold')) ORDER BY session_id, metric")" \
	"ilp_32=4.444444 mix_other=0.142857 mispredict_GAs_12=0.500000 mpki_GAg_4=333.333333 taken_rate=0.500000 avg_degree_of_use=1.500000 dependency_distance_le_2=0.800000 stride_global_read_le_8=0.666667 data_footprint_bytes=256.000000 reuse_cdf_2=0.500000 reuse_cold=0.500000" \
	"metric: one long view of (session, thread, interval, metric, value)"
is "$(q "SELECT count(DISTINCT metric) FROM metric WHERE session_id = $D")" 26 \
	"metric: 12 misprediction rates, 12 MPKIs, taken and transition rates, per session with ppm"

# Every table STRICT, the header right.
is "$(q "SELECT count(*) FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%' AND strict = 0")" 0 \
	"every table is STRICT"
is "$(q 'PRAGMA application_id')" 1296647009 "application_id 'MICA'"
is "$(q 'PRAGMA user_version')" 4 "schema version 4"

# A version 2 database (tests/schema_v2.sql, the layout before sample mode)
# migrates to 3 when micad opens it: its rows kept, the session's new
# columns there with their defaults, the profile tables created, the
# thread totals computed.
if command -v sqlite3 > /dev/null; then
	V2="$TMP/v2.db"
	{ cat "$top_srcdir/tests/schema_v2.sql"
	  echo "PRAGMA user_version = 2;"
	  echo "INSERT INTO session (id, mode, command, uid, config, settings, started_at, end_reason) VALUES (7, 'run', 'old run', 0, '', '{}', 1.5, 'exited');"
	  echo "INSERT INTO thread (session_id, tid, pid, files_pid) VALUES (7, 70, 70, 70);"
	  echo "INSERT INTO interval (id, session_id, tid, idx, full, final, ins, ins_aligned, total_ins, total_ins_aligned) VALUES (1000, 7, 70, 0, 0, 0, 100, 100, 100, 100), (1001, 7, 70, 1, 0, 1, 50, 50, 150, 150);"
	  echo "INSERT INTO memstackdist (interval_id, refs, cold) VALUES (1000, 10, 4), (1001, 6, 1);"
	  echo "INSERT INTO memstackdist_bucket (interval_id, bucket, count) VALUES (1000, 0, 6), (1001, 0, 3), (1001, 2, 2);"
	} | sqlite3 "$V2"
	"$top_builddir/micad" replay -c "$top_srcdir/tests/mica/ILP-1.conf" --db "$V2" \
		"$top_srcdir/tests/mica/ilp1.trace" >/dev/null \
		2>"$TMP/mig.err"
	ok $? "micad replay --db on a version 2 database"
	sed 's/^/# /' "$TMP/mig.err"
	is "$(sqlite3 "$V2" 'PRAGMA user_version')" 4 "a version 2 database is migrated to 4"
	is "$(sqlite3 "$V2" "SELECT command || ' ' || engine || ' ' || coalesce(sample_event, '-') FROM session WHERE id = 7")" \
		"old run step -" "migration: the old session kept, engine 'step', no sample event"
	is "$(sqlite3 "$V2" "SELECT count(*) FROM sqlite_schema WHERE name IN ('profile_frame', 'profile_stack', 'profile_sample', 'profile_interval')")" \
		4 "migration: the profile tables exist"
	# Everything a new version 3 database has, column by column: tables,
	# views (their columns: metric's ci_low, ci_high, n_bursts), indexes.
	layout="SELECT m.type || ' ' || m.name || ': ' || group_concat(p.name || ' ' || p.type || ' ' || p.\"notnull\" || ' ' || coalesce(p.dflt_value, '-') || ' ' || p.pk, ', ') FROM sqlite_schema m JOIN pragma_table_info(m.name) p WHERE m.type IN ('table', 'view') GROUP BY m.name UNION ALL SELECT type || ' ' || name || ' on ' || tbl_name FROM sqlite_schema WHERE type = 'index' ORDER BY 1"
	"$top_builddir/micad" replay -q -c "$top_srcdir/tests/mica/ILP-1.conf" --db "$TMP/v3.db" \
		"$top_srcdir/tests/mica/ilp1.trace" >/dev/null 2>&1
	sqlite3 "$V2" "$layout" > "$TMP/v2-migrated.layout"
	sqlite3 "$TMP/v3.db" "$layout" > "$TMP/v3-new.layout"
	diff "$TMP/v3-new.layout" "$TMP/v2-migrated.layout" | sed 's/^/# /'
	test "$(grep -c 'table metric_sums: .*sum_yy REAL 1' "$TMP/v3-new.layout")" = 1 &&
		cmp -s "$TMP/v3-new.layout" "$TMP/v2-migrated.layout"
	ok $? "migration: the layout of a new database, every table, view and index ($(wc -l < "$TMP/v3-new.layout") lines)"
	# ... and every view and trigger is today's, not one an older
	# migration step left behind (CREATE VIEW IF NOT EXISTS keeps those).
	code="SELECT name || ': ' || sql FROM sqlite_schema WHERE type IN ('view', 'trigger') ORDER BY name"
	sqlite3 "$V2" "$code" > "$TMP/v2-migrated.code"
	sqlite3 "$TMP/v3.db" "$code" > "$TMP/v3-new.code"
	test -s "$TMP/v3-new.code" && cmp -s "$TMP/v3-new.code" "$TMP/v2-migrated.code"
	ok $? "migration: every view's and trigger's SQL is a new database's ($(grep -c 'CREATE VIEW' "$TMP/v3-new.code") views)"
	is "$(sqlite3 "$V2" "SELECT count(*) FROM proportion_metric")" 11 "migration: the proportions' table filled"
	is "$(sqlite3 "$V2" "SELECT group_concat(name) FROM pragma_table_info('metric') WHERE cid >= 5")" \
		"ci_low,ci_high,n_bursts" "migration: view metric has the estimates' columns"
	is "$(sqlite3 "$V2" "SELECT metric || '=' || printf('%.4f', value) || ' ' || coalesce(ci_low, 'NULL') || ' ' || coalesce(n_bursts, 'NULL') FROM metric WHERE metric = 'ilp_one_2'")" \
		"ilp_one_2=1.3333 NULL NULL" "migration: metric works (ILP-1: 4 DEs / 3 cycles), no CI in step mode"
	is "$(sqlite3 "$V2" "SELECT intervals, first_idx, last_idx, first_interval_id, last_interval_id, instructions, refs, cold FROM thread_total WHERE session_id = 7")" \
		"2|0|1|1000|1001|150|16|5" "migration: the old session's thread totals computed once"
	is "$(sqlite3 "$V2" "SELECT group_concat(bucket || ':' || count || ':' || round(cdf, 4), ' ') FROM reuse_distance_session WHERE session_id = 7")" \
		"0:9:0.5625 2:2:0.6875" "migration: its whole-session reuse distances (9/16, 11/16)"
else
	skip "migration from schema version 2" "sqlite3 not found"
fi

# A version 3 database (tests/schema_v3.sql, before the proportions'
# intervals) migrates to 4: its views that compute intervals are today's,
# and its stored sums give the rule of three's interval for a proportion
# never seen (mpki: 0 misses in 2 bursts, [0, 1500] clamped to [0, 1000]).
if command -v sqlite3 > /dev/null; then
	V3="$TMP/v3-old.db"
	{ cat "$top_srcdir/tests/schema_v3.sql"
	  echo "PRAGMA user_version = 3;"
	  echo "INSERT INTO session (id, mode, command, uid, config, settings, started_at, end_reason, engine) VALUES (7, 'run', 'old sampled run', 0, '', '{}', 1.5, 'exited', 'sample');"
	  echo "INSERT INTO metric_sums VALUES (7, 70, 0, 'mpki_GAg_8', 2, 1000, 0, 520000, 0, 0, 1), (7, 70, 0, 'ilp_32', 2, 125, 1000, 7825, 63000, 520000, 1);"
	} | sqlite3 "$V3"
	"$top_builddir/micad" replay -q -c "$top_srcdir/tests/mica/ILP-1.conf" --db "$V3" \
		"$top_srcdir/tests/mica/ilp1.trace" >/dev/null 2>"$TMP/mig3.err"
	ok $? "micad replay --db on a version 3 database"
	sed 's/^/# /' "$TMP/mig3.err"
	is "$(sqlite3 "$V3" 'PRAGMA user_version')" 4 "a version 3 database is migrated to 4"
	sqlite3 "$V3" "$code" > "$TMP/v3-migrated.code"
	cmp -s "$TMP/v3-new.code" "$TMP/v3-migrated.code"
	ok $? "migration from 3: every view's and trigger's SQL is a new database's"
	is "$(sqlite3 "$V3" "SELECT group_concat(metric || ' ' || printf('%.10g %.10g', ci_low, ci_high), ', ') FROM (SELECT * FROM session_metric WHERE session_id = 7 ORDER BY metric)")" \
		"ilp_32 -8.263936 24.263936, mpki_GAg_8 0 1000" \
		"migration from 3: the old session's sums give the new intervals (8 -/+ t(1) 1.28; the rule of three over 2 units for mpki, 1500 clamped to 1000)"
else
	skip "migration from schema version 3" "sqlite3 not found"
fi

if command -v sqlite3 > /dev/null; then
	sql="SELECT * FROM reuse_distance WHERE session_id = $H ORDER BY bucket"
	"$MICACTL" query --db "$DB" --format csv "$sql" > "$TMP/micactl.csv"
	sqlite3 -csv -header "$DB" "$sql" > "$TMP/sqlite3.csv"
	# Field for field; numbers as numbers (the shell keeps 15 significant
	# digits, micactl as many as reading the same double back takes).
	awk -F, 'NR == FNR { a[FNR] = $0; next }
		{ n = split(a[FNR], x, ","); if (n != NF) bad++
		  for (i = 1; i <= NF; i++) if (x[i] != $i && (x[i] + 0 - $i) ^ 2 > 1e-26 * ($i * $i + 1e-300)) bad++ }
		END { exit bad > 0 || NR != 2 * FNR }' "$TMP/micactl.csv" "$TMP/sqlite3.csv"
	ok $? "micactl query --format csv equals the sqlite3 shell's -csv output"
else
	skip "micactl query vs the sqlite3 shell" "sqlite3 not found"
fi
done_testing
