/*
 * The ratio estimator (analyzers/mica/ratio_estimate.h) against vectors
 * computed by hand:
 *
 *   units (x, y) = (10, 3), (20, 5), (10, 4), (20, 8):
 *     n = 4, sum x = 60, sum y = 20, R = 1/3;
 *     residuals y - R x = -1/3, -5/3, 2/3, 4/3, squares summing to 46/9;
 *     SE = sqrt(46/9 / (4 * 3)) / 15 = sqrt(23/54) / 15 = 0.04350867...;
 *     95% CI = 1/3 -/+ 1.96 SE = [0.248056, 0.418610];
 *     half-width 0.085277, relative 0.255831; V = sqrt(4) SE / R = 0.261052.
 *   units (5, 10), (7, 14): every unit has R = 2: SE 0, CI [2, 2].
 *   one unit: a value, no interval; no denominator: no value.
 */
#include "config.h"

#include <math.h>

#include "mica/ratio_estimate.h"
#include "tap.h"

static int
near(double got, double want, double tol)
{
	if (fabs(got - want) <= tol)
		return 1;
	diag("  got %.12f, want %.12f", got, want);
	return 0;
}

int
main(void)
{
	static const uint64_t x[4] = { 10, 20, 10, 20 }, y[4] = { 3, 5, 4, 8 };
	struct ratio_sums s = { 0 }, a = { 0 }, b = { 0 };
	struct ratio_estimate e;
	const double se = sqrt(23.0 / 54.0) / 15.0;

	for (int i = 0; i < 4; i++)
		ratio_sums_add(&s, x[i], y[i]);
	is_u64(s.n, 4, "n = 4 units");
	is_u64(s.sx, 60, "sum x = 60");
	is_u64(s.sy, 20, "sum y = 20");
	ok(s.sxx == 1000 && s.sxy == 330 && s.syy == 114, "sum x^2 = 1000, sum xy = 330, sum y^2 = 114");
	ratio_estimate(&s, RATIO_Z95, &e);
	ok(e.has_value && near(e.value, 1.0 / 3, 1e-15), "R = 20/60");
	ok(e.has_ci && near(e.se, se, 1e-15), "SE = sqrt(23/54) / 15");
	ok(near(e.se, 0.0435086671, 1e-10), "SE = 0.0435086671");
	ok(near(e.low, 0.248056, 5e-7) && near(e.high, 0.418610, 5e-7), "95%% CI [0.248056, 0.418610]");
	ok(near(e.half_width, 0.085277, 5e-7), "half-width 1.96 SE = 0.085277");
	ok(e.has_rel && near(e.rel_half_width, 0.255831, 5e-7), "relative half-width 0.255831");
	ok(near(e.cv, 0.261052, 5e-7), "V = sqrt(n) SE / R = 0.261052");
	ratio_estimate(&s, 3.0, &e);
	ok(near(e.high - e.value, 3 * se, 1e-15), "z = 3: half-width 3 SE");

	/* Pooling two intervals' sums is pooling their units. */
	ratio_sums_add(&a, 10, 3);
	ratio_sums_add(&a, 20, 5);
	ratio_sums_add(&b, 10, 4);
	ratio_sums_add(&b, 20, 8);
	ratio_sums_merge(&a, &b);
	ok(a.n == s.n && a.sx == s.sx && a.sy == s.sy && a.sxx == s.sxx && a.sxy == s.sxy &&
	   a.syy == s.syy, "merged sums of (10,3),(20,5) and (10,4),(20,8) equal the four units'");

	memset(&s, 0, sizeof(s));
	ratio_sums_add(&s, 5, 10);
	ratio_sums_add(&s, 7, 14);
	ratio_estimate(&s, RATIO_Z95, &e);
	ok(e.has_ci && e.value == 2 && e.se == 0 && e.low == 2 && e.high == 2,
	   "a constant ratio: R = 2, SE = 0, CI [2, 2]");

	memset(&s, 0, sizeof(s));
	ratio_sums_add(&s, 8, 2);
	ratio_estimate(&s, RATIO_Z95, &e);
	ok(e.has_value && e.value == 0.25 && !e.has_ci, "one unit: R = 0.25, no interval");

	memset(&s, 0, sizeof(s));
	ratio_sums_add(&s, 0, 0);
	ratio_sums_add(&s, 0, 0);
	ratio_estimate(&s, RATIO_Z95, &e);
	ok(!e.has_value && !e.has_ci && e.n == 2, "no denominator: no value, no interval");

	memset(&s, 0, sizeof(s));
	ratio_sums_add(&s, 4, 0);
	ratio_sums_add(&s, 6, 0);
	ratio_estimate(&s, RATIO_Z95, &e);
	ok(e.has_ci && e.value == 0 && e.se == 0 && !e.has_rel, "R = 0: no relative half-width");
	return done_testing();
}
