/*
 * The ratio estimator of sampled characterization (spec performance.md
 * §3.3, SMARTS): a metric that is a ratio of two sums over the instruction
 * stream (mix fraction = group count / instructions, misprediction rate =
 * misses / branches, ...) is estimated from n measured units (bursts), unit
 * i contributing its numerator y_i and denominator x_i, as
 *
 *	R = sum(y) / sum(x)
 *	SE(R) = sqrt( sum((y_i - R x_i)^2) / (n (n - 1)) ) / mean(x)
 *	CI = R -/+ t SE
 *
 * t the 97.5% quantile of Student's t with n - 1 degrees of freedom (12.71
 * for 2 units, 2.13 for 16, 1.98 for 120): micad's intervals are 95%
 * intervals from a few bursts, where the normal quantile 1.96 would claim
 * too much (make bench-sample: 88.5% of 1.96-intervals held the exact
 * value, 91% of t-intervals).
 * (the finite-population factor 1 - f is taken as 1: bursts are a tiny
 * fraction of the run, and leaving it out only widens the interval).  The
 * sums kept are those from which every term can be had again after units
 * or intervals are pooled: n, sum x, sum y, sum x^2, sum xy, sum y^2
 * (sum((y - R x)^2) = Syy - 2 R Sxy + R^2 Sxx).  The database keeps the
 * same six per interval and metric (table metric_sums) and its views
 * compute the same formulas in SQL.  Pure: no I/O.
 *
 * Proportions.  Most metrics count a subset of their denominator's events
 * (a group's instructions among all, misses among branches, reads of a
 * stride among reads): y_i <= s x_i, s the metric's scale (1; 1000 for
 * MPKI).  Two things follow.  The interval is clamped to [0, s].  And when
 * no unit saw the event at all (sum y = 0), or every unit saw it on every
 * denominator event (sum y = s sum x), every unit has the same ratio and
 * the units' SE is 0, although an event may well have gone unseen: then
 * the interval is the rule of three's over the n units, [0, 3 s / n] (or
 * [s - 3 s / n, s]), its quantile 1.96 and SE its half-width / 1.96: at
 * 95%, fewer than 3 / n of the units would see the event, and a unit's
 * ratio is at most s.  The rule over the instructions (3 / sum x) would
 * assume events that come one by one; they come in clumps (a phase's
 * mispredictions, a loop's exit), and make bench-sample found such
 * intervals missing the exact value in one run of ten.  The metrics that
 * are proportions are named by ratio_proportions
 * (table proportion_metric in the database holds the same rows).
 */
#ifndef MICAD_RATIO_ESTIMATE_H
#define MICAD_RATIO_ESTIMATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* z of the two-sided 95% normal interval (the rule of three's quantile). */
#define RATIO_Z95	1.96

/*
 * The sums of one metric over the units seen.  n, sx and sy are exact
 * integers; the second moments are doubles (they overflow 64 bits for
 * long units and many bursts), exact while they stay below 2^53.
 */
struct ratio_sums {
	uint64_t n;
	uint64_t sx, sy;
	double sxx, sxy, syy;
};

/* One unit's (x, y). */
static inline void
ratio_sums_add(struct ratio_sums *s, uint64_t x, uint64_t y)
{
	s->n++;
	s->sx += x;
	s->sy += y;
	s->sxx += (double)x * (double)x;
	s->sxy += (double)x * (double)y;
	s->syy += (double)y * (double)y;
}

/* Pool b into a (units of another interval, or of another thread). */
void ratio_sums_merge(struct ratio_sums *a, const struct ratio_sums *b);

struct ratio_estimate {
	uint64_t n;
	bool has_value;		/* sum x > 0 */
	double value;		/* R */
	/* Only when has_ci: n >= 2 and R defined. */
	bool has_ci;
	double se;		/* SE(R) */
	double quantile;	/* t(n - 1), or 1.96 for the rule of three */
	double half_width;	/* quantile SE */
	double rel_half_width;	/* half_width / R; has_rel only when R != 0 */
	bool has_rel;
	double low, high;	/* R -/+ half_width */
	/* The realized coefficient of variation of the units' residuals,
	 * s(y - R x) / (R mean(x)) = sqrt(n) SE / R: what SMARTS's sample
	 * size rule n >= (t V / eps)^2 needs.  Only with has_rel. */
	double cv;
};

/*
 * The estimate and its 95% interval; scale: the metric's as a proportion
 * (ratio_proportion_scale), 0 for a ratio that is none (ILP, operands per
 * instruction, degree of use).
 */
void ratio_estimate(const struct ratio_sums *s, double scale, struct ratio_estimate *out);

/*
 * The 97.5% quantile of Student's t with df >= 1 degrees of freedom: a
 * table to 30 (to 4 decimals, as the database's table student_t), then
 * the Cornish-Fisher expansion z + (z^3 + z) / (4 df) + (5 z^5 + 16 z^3 +
 * 3 z) / (96 df^2), within 2e-4 of it beyond.
 */
double ratio_t975(uint64_t df);

/* The metrics that are proportions: those whose names begin with prefix. */
struct ratio_proportion {
	const char *prefix;
	double scale;
};
extern const struct ratio_proportion ratio_proportions[];
extern const size_t ratio_n_proportions;

/* The scale of the metric named name (the `metric` view's name: 'mix_mem',
 * 'mpki_GAg_4', 'stride_local_read_le_8', ...) as a proportion, 0 when it
 * is none. */
double ratio_proportion_scale(const char *name);

#endif /* MICAD_RATIO_ESTIMATE_H */
