/*
 * The ratio estimator (analyzers/mica/ratio_estimate.h) against vectors
 * computed by hand:
 *
 *   units (x, y) = (10, 3), (20, 5), (10, 4), (20, 8):
 *     n = 4, sum x = 60, sum y = 20, R = 1/3;
 *     residuals y - R x = -1/3, -5/3, 2/3, 4/3, squares summing to 46/9;
 *     SE = sqrt(46/9 / (4 * 3)) / 15 = sqrt(23/54) / 15 = 0.04350867...;
 *     95% CI = 1/3 -/+ t(3) SE = 1/3 -/+ 3.1824 SE = [0.194871, 0.471795];
 *     half-width 0.138462, relative 0.415386; V = sqrt(4) SE / R = 0.261052.
 *   units (5, 10), (7, 14): every unit has R = 2: SE 0, CI [2, 2].
 *   one unit: a value, no interval; no denominator: no value.
 * Proportions (scale s > 0: y_i <= s x_i):
 *   (1000, 0) six times, s 1: never seen, the rule of three over the 6
 *     units: CI [0, 3 / 6] = [0, 0.5], SE 3 / (1.96 x 6); as no
 *     proportion, SE 0.
 *   (500, 500), (700, 700), (500, 500), (700, 700): always, CI [1 - 3 / 4,
 *     1] = [0.25, 1].
 *   (1000, 0), (3000, 0) and three (2000, 0), s 1000 (MPKI): CI [0, 3000 /
 *     5] = [0, 600]; two units: 3000 / 2 clamped to [0, 1000].
 *   (10, 1), (10, 0), (10, 0): R 1/30, residuals 2/3, -1/3, -1/3, SE
 *     sqrt(6/9 / 6) / 10 = 1/30: R -/+ t(2) SE = 1/30 -/+ 4.3027 / 30 =
 *     [-0.110090, 0.176757]; as a proportion clamped to [0, 0.176757].
 * Student's t quantiles: the table's ends (12.7062 for 1 degree of freedom,
 * 2.0423 for 30), the expansion beyond (2.0395 for 31, 1.9799 for 120: the
 * quantiles to 4 decimals).
 */
#include "config.h"

#include <math.h>
#include <string.h>

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
	ratio_estimate(&s, 0, &e);
	ok(e.has_value && near(e.value, 1.0 / 3, 1e-15), "R = 20/60");
	ok(e.has_ci && near(e.se, se, 1e-15), "SE = sqrt(23/54) / 15");
	ok(near(e.se, 0.0435086671, 1e-10), "SE = 0.0435086671");
	ok(e.quantile == 3.1824, "4 units: quantile t(3) = 3.1824");
	ok(near(e.low, 0.194871, 5e-7) && near(e.high, 0.471795, 5e-7), "95%% CI [0.194871, 0.471795]");
	ok(near(e.half_width, 0.138462, 5e-7), "half-width t(3) SE = 0.138462");
	ok(e.has_rel && near(e.rel_half_width, 0.415386, 5e-7), "relative half-width 0.415386");
	ok(near(e.cv, 0.261052, 5e-7), "V = sqrt(n) SE / R = 0.261052");
	ok(ratio_t975(1) == 12.7062 && ratio_t975(30) == 2.0423 && near(ratio_t975(31), 2.0395, 1e-4) &&
	   near(ratio_t975(120), 1.9799, 5e-5) && near(ratio_t975(1000000), 1.96, 5e-5),
	   "t(1) 12.7062, t(30) 2.0423 (table); t(31) 2.0395, t(120) 1.9799, t(10^6) 1.96 (expansion)");

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
	ratio_estimate(&s, 0, &e);
	ok(e.has_ci && e.value == 2 && e.se == 0 && e.low == 2 && e.high == 2,
	   "a constant ratio: R = 2, SE = 0, CI [2, 2]");

	memset(&s, 0, sizeof(s));
	ratio_sums_add(&s, 8, 2);
	ratio_estimate(&s, 0, &e);
	ok(e.has_value && e.value == 0.25 && !e.has_ci, "one unit: R = 0.25, no interval");

	memset(&s, 0, sizeof(s));
	ratio_sums_add(&s, 0, 0);
	ratio_sums_add(&s, 0, 0);
	ratio_estimate(&s, 0, &e);
	ok(!e.has_value && !e.has_ci && e.n == 2, "no denominator: no value, no interval");

	memset(&s, 0, sizeof(s));
	ratio_sums_add(&s, 4, 0);
	ratio_sums_add(&s, 6, 0);
	ratio_estimate(&s, 0, &e);
	ok(e.has_ci && e.value == 0 && e.se == 0 && !e.has_rel, "R = 0: no relative half-width");

	/* Proportions. */
	memset(&s, 0, sizeof(s));
	for (int i = 0; i < 6; i++)
		ratio_sums_add(&s, 1000, 0);
	ratio_estimate(&s, 1, &e);
	ok(e.has_ci && e.value == 0 && e.low == 0 && near(e.high, 0.5, 1e-15) &&
	   near(e.se, 3 / (1.96 * 6), 1e-15) && e.quantile == RATIO_Z95,
	   "never seen in 6 units: the rule of three, [0, 3 / 6]");
	ratio_estimate(&s, 0, &e);
	ok(e.has_ci && e.se == 0 && e.high == 0, "... as no proportion: SE 0");
	memset(&s, 0, sizeof(s));
	for (int i = 0; i < 2; i++) {
		ratio_sums_add(&s, 500, 500);
		ratio_sums_add(&s, 700, 700);
	}
	ratio_estimate(&s, 1, &e);
	ok(e.has_ci && e.value == 1 && near(e.low, 0.25, 1e-15) && e.high == 1,
	   "seen on every event of 4 units: [1 - 3 / 4, 1]");
	memset(&s, 0, sizeof(s));
	ratio_sums_add(&s, 1000, 0);
	ratio_sums_add(&s, 3000, 0);
	ratio_estimate(&s, 1000, &e);
	ok(e.has_ci && e.low == 0 && e.high == 1000, "MPKI (scale 1000) never seen in 2 units: 1500 clamped, [0, 1000]");
	for (int i = 0; i < 3; i++)
		ratio_sums_add(&s, 2000, 0);
	ratio_estimate(&s, 1000, &e);
	ok(e.has_ci && e.low == 0 && near(e.high, 600, 1e-12), "... in 5 units: [0, 3000 / 5]");
	memset(&s, 0, sizeof(s));
	ratio_sums_add(&s, 10, 1);
	ratio_sums_add(&s, 10, 0);
	ratio_sums_add(&s, 10, 0);
	ratio_estimate(&s, 0, &e);
	ok(e.has_ci && near(e.se, 1.0 / 30, 1e-15) && near(e.low, -3.3027 / 30, 1e-15) &&
	   near(e.high, 5.3027 / 30, 1e-15), "(10,1),(10,0),(10,0): SE 1/30, R -/+ t(2) SE");
	ratio_estimate(&s, 1, &e);
	ok(e.has_ci && near(e.se, 1.0 / 30, 1e-15) && e.low == 0 && near(e.high, 5.3027 / 30, 1e-15),
	   "... as a proportion: the same SE, clamped at 0");

	/* Which metrics are proportions, by the metric view's names. */
	{
		static const struct { const char *name; double scale; } names[] = {
			{ "mix_mem_read", 1 }, { "mix_other", 1 }, { "mispredict_GAg_4", 1 },
			{ "mpki_PAs_12", 1000 }, { "taken_rate", 1 }, { "transition_rate", 1 },
			{ "dependency_distance_le_64", 1 }, { "stride_local_read_le_8", 1 },
			{ "reuse_bucket_3", 1 }, { "reuse_cdf_18", 1 }, { "reuse_cold", 1 },
			{ "reuse_censored", 1 }, { "ilp_32", 0 }, { "ilp_one_256", 0 },
			{ "avg_register_operands", 0 }, { "avg_degree_of_use", 0 },
			{ "data_footprint_bytes", 0 }, { "insn_footprint_page_bytes", 0 },
		};
		int bad = 0;

		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (ratio_proportion_scale(names[i].name) != names[i].scale) {
				diag("  %s: scale %g, want %g", names[i].name,
				     ratio_proportion_scale(names[i].name), names[i].scale);
				bad++;
			}
		ok(!bad, "proportions: mix, mispredict, mpki (1000), branch rates, dependency "
		   "distances, strides, reuse; not ILP, operands, degree of use, footprints");
	}
	return done_testing();
}
