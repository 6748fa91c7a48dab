/*
 * The ratio estimator and its standard error (ratio_estimate.h).
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "mica/ratio_estimate.h"

void
ratio_sums_merge(struct ratio_sums *a, const struct ratio_sums *b)
{
	a->n += b->n;
	a->sx += b->sx;
	a->sy += b->sy;
	a->sxx += b->sxx;
	a->sxy += b->sxy;
	a->syy += b->syy;
}

/* Keep in step with schema.sql's table proportion_metric (tests/store_test
 * compares them); no prefix begins another. */
const struct ratio_proportion ratio_proportions[] = {
	{ "mix_", 1 },
	{ "mispredict_", 1 },
	{ "mpki_", 1000 },
	{ "taken_rate", 1 },
	{ "transition_rate", 1 },
	{ "dependency_distance_le_", 1 },
	{ "stride_", 1 },
	{ "reuse_bucket_", 1 },
	{ "reuse_cdf_", 1 },
	{ "reuse_cold", 1 },
	{ "reuse_censored", 1 },
};
const size_t ratio_n_proportions = sizeof(ratio_proportions) / sizeof(ratio_proportions[0]);

double
ratio_proportion_scale(const char *name)
{
	for (size_t i = 0; i < ratio_n_proportions; i++) {
		const char *p = ratio_proportions[i].prefix;

		if (strncmp(name, p, strlen(p)) == 0)
			return ratio_proportions[i].scale;
	}
	return 0;
}

/* Keep in step with schema.sql's table student_t. */
static const double t975[30] = {
	12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
	2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
	2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
};

double
ratio_t975(uint64_t df)
{
	double d = (double)df;

	if (df >= 1 && df <= 30)
		return t975[df - 1];
	return 1.959964 + 2.372271 / d + 2.822499 / (d * d);
}

void
ratio_estimate(const struct ratio_sums *s, double scale, struct ratio_estimate *out)
{
	double r, q, xbar;

	memset(out, 0, sizeof(*out));
	out->n = s->n;
	if (s->sx == 0)
		return;
	r = (double)s->sy / (double)s->sx;
	out->has_value = true;
	out->value = r;
	if (s->n < 2)
		return;
	/* The residuals' sum of squares from the moments.  It is a
	 * difference of large terms: when every unit has the same ratio it
	 * is 0 up to rounding, which can leave it slightly negative. */
	q = s->syy - 2 * r * s->sxy + r * r * s->sxx;
	if (q < 0)
		q = 0;
	xbar = (double)s->sx / (double)s->n;
	out->has_ci = true;
	if (scale > 0 && (s->sy == 0 || (double)s->sy == scale * (double)s->sx)) {
		/* Never seen, or seen on every event: the rule of three. */
		out->quantile = RATIO_Z95;
		out->se = scale * 3.0 / (RATIO_Z95 * (double)s->n);
	} else {
		out->quantile = ratio_t975(s->n - 1);
		out->se = sqrt(q / ((double)s->n * (double)(s->n - 1))) / xbar;
	}
	out->half_width = out->quantile * out->se;
	out->low = r - out->half_width;
	out->high = r + out->half_width;
	if (scale > 0) {
		out->low = fmax(out->low, 0);
		out->high = fmin(out->high, scale);
	}
	if (r != 0) {
		out->has_rel = true;
		out->rel_half_width = out->half_width / fabs(r);
		out->cv = sqrt((double)s->n) * out->se / fabs(r);
	}
}
