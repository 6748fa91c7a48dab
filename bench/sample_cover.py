#!/usr/bin/env python3
"""The accuracy half of 'make bench-sample' (bench/sample_bench.sh).

sample_cover.py SYMS N1 STEP_DB1 N2 STEP_DB2 PHASE=N1:DB1,N2:DB2... -- SAMPLE_DB...

STEP_DBk: step mode over a whole run of Nk rounds of the program (one
interval, interval_size: full); N1 < N2.  PHASE=...: the same for a phase
run alone.  SYMS: `nm` of the program (the phases' functions
are phase_PHASE).  Each SAMPLE_DB: one sampled run (session 1) of a long
run of the same program, with intervals short enough to hold one burst
each (--interval-time 0.01), and beside it SAMPLE_DB minus .db plus .units:
the first and last address of each measured unit, in order (from
--dump-events).

The exact value of the long run.  The program's rounds repeat, so a run's
exact value is R(N) = R + a / N + O(1 / N^2): its start and end (the first
access of each static instruction, which stride counts apart; the
predictors' and the LRU stack's first fills) weigh 1 / N.  The long run's
value is then R = (N2 R(N2) - N1 R(N1)) / (N2 - N1), to O(1 / N1^2).

Compared: every metric of session_metric that has a confidence interval
(estimable, at least 2 bursts) and a step-mode value.  Printed: each
metric's step-mode value over N2 rounds, the long run's, the first run's
estimate and 95% interval, and in how many runs the interval held the long
run's value; then the coverage over all (run, metric) pairs, the misses
sorted by kind:
  - the rule of three's intervals: a proportion (the database's
    proportion_metric) that no unit saw, or every unit saw on every event
    of its denominator;
  - width 0: every unit of the run gave the same ratio, so the interval
    has no width (in a database before schema 4, the proportions never
    or always seen were these), and the exact value differs by events too
    rare for the run's bursts (a phase's call and return, an alignment
    nop): what the difference is worth in events of the run's units is
    printed;
  - the others, by how many standard errors the estimate is off;
the coverage with the normal quantile 1.96 instead of Student's t for
n - 1 degrees of freedom (what micad used before); and, resampling the bursts of all runs (each interval's
unit: one burst), the coverage expected with more bursts per run.

Before that, where the units fell (by phase: bursts placed by time must
fall on each phase as often as it runs), and whether a burst measures what
step mode does (warm-up, analyzer state kept across bursts, the
estimator's sums): the units that began and ended inside one phase,
pooled per phase, against that phase run alone in step mode.
"""
import random
import sqlite3
import sys

# t(0.975, df) for df = 1..30, as micad's (ratio_t975, table student_t);
# beyond, the same Cornish-Fisher expansion.
T975 = [12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
        2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
        2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423]


def t975(df):
    return T975[df - 1] if df <= 30 else 1.959964 + 2.372271 / df + 2.822499 / (df * df)


def step_values(db):
    s = sqlite3.connect(db)
    v = dict(s.execute("SELECT metric, value FROM metric WHERE session_id = 1 AND value IS NOT NULL"))
    s.close()
    return v


def proportions(db):
    """[(prefix, scale)] of the database's proportion_metric (schema 4)."""
    s = sqlite3.connect(db)
    try:
        return list(s.execute("SELECT prefix, scale FROM proportion_metric"))
    except sqlite3.Error:
        return []
    finally:
        s.close()


def scale_of(props, m):
    for p, sc in props:
        if m.startswith(p):
            return sc
    return 0


def session_metrics(db):
    """{metric: (value, ci_low, ci_high, se, n, sum_x, sum_y)}, {metric: [(n, x, y) per unit]}"""
    s = sqlite3.connect(db)
    rows = s.execute("""SELECT e.metric, e.value, e.ci_low, e.ci_high, e.se, e.n_bursts, x.sx, x.sy
        FROM session_metric e JOIN (SELECT metric, sum(sum_x) AS sx, sum(sum_y) AS sy FROM metric_sums
            WHERE session_id = 1 GROUP BY metric) x ON x.metric = e.metric
        WHERE e.session_id = 1 AND e.estimable AND e.ci_low IS NOT NULL""").fetchall()
    units = {}
    for m, n, x, y in s.execute("""SELECT metric, n, sum_x, sum_y FROM metric_sums
            WHERE session_id = 1 ORDER BY tid, idx"""):
        units.setdefault(m, []).append((n, x, y))
    s.close()
    return {r[0]: r[1:] for r in rows}, units


def estimate(xs, ys, scale=0):
    """R, SE, CI low, CI high of the ratio estimator over units (x_i, y_i),
    as the views compute them (R -/+ t(n - 1) SE; a proportion never or
    always seen: the rule of three; a proportion's interval clamped to [0,
    scale]); None without x or with fewer than 2 units."""
    n = len(xs)
    sx, sy = sum(xs), sum(ys)
    if sx == 0 or n < 2:
        return None
    r = sy / sx
    if scale and (sy == 0 or sy == scale * sx):
        se, t = scale * 3.0 / (RATIO_Z * n), RATIO_Z
    else:
        q = sum((y - r * x) ** 2 for x, y in zip(xs, ys))
        se, t = (q / (n * (n - 1))) ** 0.5 / (sx / n), t975(n - 1)
    lo, hi = r - t * se, r + t * se
    if scale:
        lo, hi = max(lo, 0.0), min(hi, scale)
    return r, se, lo, hi


def extrapolate(n1, v1, n2, v2):
    """The value of a run of infinitely many rounds, from runs of n1 and n2."""
    return {m: (n2 * v2[m] - n1 * v1[m]) / (n2 - n1) for m in v2 if m in v1}


def phase_of(syms, pc):
    name = None
    for a, n in syms:
        if pc >= a:
            name = n
    return name


def phases(syms, loaded, dbs, names, alone):
    """Where the units fell; units inside one phase against it alone."""
    count = {n: 0 for _, n in syms}
    inside = {}		# phase: {metric: [sum x, sum y, sum xx, sum xy, sum yy, n]}
    aligned = 0
    for (r, u), db in zip(loaded, dbs):
        try:
            lines = [l.split() for l in open(db[:-3] + ".units")]
        except OSError:
            continue
        for l in lines:
            p = phase_of(syms, int(l[0], 16))
            count[p] = count.get(p, 0) + 1
        k = len(u[names[0]])
        if k != len(lines) or any(n != 1 for m in names for n, _, _ in u[m]):
            continue
        aligned += 1
        for i, l in enumerate(lines):
            p, q = phase_of(syms, int(l[0], 16)), phase_of(syms, int(l[1], 16))
            if p != q or p not in alone:
                continue
            for m in names:
                _, x, y = u[m][i]
                a = inside.setdefault(p, {}).setdefault(m, [0, 0, 0.0, 0.0, 0.0, 0])
                a[0] += x
                a[1] += y
                a[2] += x * x
                a[3] += x * y
                a[4] += y * y
                a[5] += 1
    t = sum(count.values())
    print("  where the units began: " + ", ".join(
        "%s %d (%.1f%%)" % (n, c, 100.0 * c / max(t, 1)) for n, c in count.items() if n in alone) +
        " of %d; chi-square against equal shares: %.1f (%d degrees of freedom: %.1f at p = 0.05)" % (
            t, sum((count.get(n, 0) - t / len(alone)) ** 2 / (t / len(alone)) for n in alone),
            len(alone) - 1, {1: 3.8, 2: 6.0, 3: 7.8, 4: 9.5}.get(len(alone) - 1, 0)))
    if not inside:
        return
    # each phase's units against the phase alone: off when the difference
    # is over 3 standard errors of the units' ratio plus what counting whole
    # events in each unit can do (a unit of 1000 instructions sees 3 or 4
    # of an event every 320: sqrt(n) events over the units' sum of x)
    worst = []
    nu = 0
    for p, ms in inside.items():
        for m, (sx, sy, sxx, sxy, syy, n) in ms.items():
            if m not in alone[p] or sx == 0:
                continue
            r = sy / sx
            q = max(syy - 2 * r * sxy + r * r * sxx, 0.0)
            se = (q / (n * (n - 1))) ** 0.5 / (sx / n) if n > 1 else 0.0
            grain = n ** 0.5 * (1000 if m.startswith("mpki_") else 1) / sx
            d = abs(r - alone[p][m])
            nu += 1
            worst.append((d / (3 * se + grain), d, p, m, r, alone[p][m], n, se))
    worst.sort(reverse=True)
    big = [w for w in worst if w[0] > 1]
    print("  units inside one phase (%d runs aligned with their dumps), pooled per phase, against the" % aligned)
    print("  phase alone in step mode: %d (phase, metric) pairs, %d off by more than 3 se and the units' grain%s" % (
        nu, len(big), ":" if big else ""))
    for k, d, p, m, r, x, n, se in big[:12]:
        print("    %-7s %-29s units %.6g, alone %.6g (%d units, se %.3g)" % (p, m, r, x, n, se))


def main():
    args = sys.argv[1:]
    sep = args.index("--")
    head, dbs = args[:sep], args[sep + 1:]
    syms = sorted((int(l[0], 16), l[-1][len("phase_"):]) for l in
                  (l.split() for l in open(head[0])) if l[-1].startswith("phase_"))
    n1, n2 = int(head[1]), int(head[3])
    v1, v2 = step_values(head[2]), step_values(head[4])
    alone = {}
    for a in head[5:]:
        p, dbs2 = a.split("=", 1)
        (a1, d1), (a2, d2) = (x.split(":", 1) for x in dbs2.split(","))
        alone[p] = extrapolate(int(a1), step_values(d1), int(a2), step_values(d2))
    exact = extrapolate(n1, v1, n2, v2)
    loaded = [session_metrics(db) for db in dbs]
    runs = [r for r, _ in loaded]
    props = proportions(dbs[0])
    names = sorted(set(m for r in runs for m in r if m in exact))
    phases(syms, loaded, dbs, names, alone)
    cover = {m: [0, 0] for m in names}	# covered, compared
    width0 = {}				# metric: [covered, missed, max events]
    rule3 = {}				# metric: [covered, missed]
    zmiss = {}				# metric: [|est - exact| / se]
    pairs = covered = covered_z = covered_short = 0
    for r in runs:
        for m in names:
            if m not in r:
                continue
            est, lo, hi, se, n, sx, sy = r[m]
            sc = scale_of(props, m)
            x = exact[m]
            # the views' rounding, the extrapolation's second order
            tol = 1e-7 * max(1.0, abs(est))
            hit = lo - tol <= x <= hi + tol
            pairs += 1
            cover[m][1] += 1
            covered += hit
            cover[m][0] += hit
            covered_z += (lo - tol <= x <= hi + tol if sc and (sy == 0 or sy == sc * sx)
                          else abs(est - x) <= RATIO_Z * se + tol)
            covered_short += lo - tol <= v2[m] <= hi + tol
            if sc and (sy == 0 or sy == sc * sx):
                w = rule3.setdefault(m, [0, 0])
                w[0 if hit else 1] += 1
            elif hi - lo <= tol:
                w = width0.setdefault(m, [0, 0, 0.0])
                if hit:
                    w[0] += 1
                else:
                    w[1] += 1
                    # the difference in events of the units' x (mpki: y
                    # counts 1000 per miss)
                    ev = abs(est - x) * sx / (1000 if m.startswith("mpki_") else 1)
                    w[2] = max(w[2], ev)
            elif not hit:
                zmiss.setdefault(m, []).append(abs(est - x) / se)

    first = runs[0]
    print()
    print("%-29s %11s %11s  %-36s %s" % ("metric", "step %d" % n2, "long run",
                                         "run 1: estimate [95% CI]", "covered"))
    for m in names:
        if m in first:
            est, lo, hi = first[m][:3]
            e = "%.5g [%.5g, %.5g]" % (est, lo, hi)
        else:
            e = "-"
        c, t = cover[m]
        print("%-29s %11.6g %11.6g  %-36s %2d/%d%s" % (
            m, v2[m], exact[m], e, c, t, "" if c >= 0.9 * t else "  <"))
    print()
    print("Coverage: %d of %d (run, metric) pairs = %.1f%% (goal: 90%%); %d metrics, %d runs" % (
        covered, pairs, 100.0 * covered / max(pairs, 1), len(names), len(runs)))
    p3 = sum(w[0] + w[1] for w in rule3.values())
    m3 = sum(w[1] for w in rule3.values())
    p0 = sum(w[0] + w[1] for w in width0.values())
    m0 = sum(w[1] for w in width0.values())
    pw, cw = pairs - p0 - p3, covered - (p0 - m0) - (p3 - m3)
    print("  proportions never or always seen (the rule of three's interval): %d of %d hold the exact value%s" % (
        p3 - m3, p3, "; missed:" if m3 else ""))
    for m, w in sorted(rule3.items(), key=lambda kv: (-kv[1][1], kv[0])):
        if w[1]:
            print("    %-29s missed in %2d runs: long run %.6g" % (m, w[1], exact[m]))
    print("  the other intervals of width > 0: %d of %d = %.1f%%" % (cw, pw, 100.0 * cw / max(pw, 1)))
    print("  intervals of width 0 (every unit of the run gave the same ratio): %d of %d hold the exact value" % (
        p0 - m0, p0))
    for m, w in sorted(width0.items(), key=lambda kv: (-kv[1][1], kv[0])):
        if w[1]:
            print("    %-29s missed in %2d runs: long run %.6g, worth %.2f events at most in a run's units" % (
                m, w[1], exact[m], w[2]))
    nz = sum(len(v) for v in zmiss.values())
    if nz:
        zs = sorted(z for v in zmiss.values() for z in v)
        print("  misses of width > 0: %d, off by %.2f to %.2f standard errors (median %.2f):" % (
            nz, zs[0], zs[-1], zs[len(zs) // 2]))
        for m, v in sorted(zmiss.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            print("    %-29s %2d runs (%s)" % (m, len(v), ", ".join("%.1f" % z for z in sorted(v))))
    print("  against the %d-round step values themselves (their start and end left in): %.1f%%" % (
        n2, 100.0 * covered_short / max(pairs, 1)))
    print("  with the normal quantile 1.96 instead of Student's t(n - 1) (the rule of three's as they are): %d of %d = %.1f%%" % (
        covered_z, pairs, 100.0 * covered_z / max(pairs, 1)))

    # Resampling: the bursts of all runs pooled (the population), runs of n
    # bursts drawn from it, their intervals against the pooled ratio.
    units = {m: [] for m in names}
    pooled = 0
    for _, u in loaded:
        k = len(u[names[0]]) if names and names[0] in u else 0
        if any(len(u.get(m, [])) != k or any(n != 1 for n, _, _ in u.get(m, [])) for m in names):
            continue	# not one burst per interval
        pooled += k
        for m in names:
            units[m].extend((x, y) for _, x, y in u[m])
    if pooled < 30:
        return
    rng = random.Random(1)
    truth = {}
    for m in names:
        sx = sum(x for x, _ in units[m])
        if sx:
            truth[m] = sum(y for _, y in units[m]) / sx
    ns = sorted(r[names[0]][4] for r in runs if names[0] in r)
    sizes = [ns[len(ns) // 2], 30, 100, 300]
    out = []
    for n in sizes:
        hits = tot = hits_z = 0
        for _ in range(200):
            idx = [rng.randrange(pooled) for _ in range(n)]
            for m, r in truth.items():
                sc = scale_of(props, m)
                xs, ys = [units[m][i][0] for i in idx], [units[m][i][1] for i in idx]
                e = estimate(xs, ys, sc)
                if e is None:
                    continue
                tol = 1e-7 * max(1.0, abs(e[0]))
                tot += 1
                hits += e[2] - tol <= r <= e[3] + tol
                if sc and (sum(ys) == 0 or sum(ys) == sc * sum(xs)):
                    hits_z += e[2] - tol <= r <= e[3] + tol
                else:
                    hits_z += abs(e[0] - r) <= RATIO_Z * e[1] + tol
        out.append("%d bursts %.1f%% (1.96: %.1f%%)" % (n, 100.0 * hits / tot, 100.0 * hits_z / tot))
    print("  resampling the %d bursts of the runs (200 runs of n bursts each, against the pooled ratio):" % pooled)
    print("    " + "; ".join(out))


RATIO_Z = 1.96

if __name__ == "__main__":
    main()
