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

void
ratio_estimate(const struct ratio_sums *s, double z, struct ratio_estimate *out)
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
	out->se = sqrt(q / ((double)s->n * (double)(s->n - 1))) / xbar;
	out->half_width = z * out->se;
	out->low = r - out->half_width;
	out->high = r + out->half_width;
	if (r != 0) {
		out->has_rel = true;
		out->rel_half_width = out->half_width / fabs(r);
		out->cv = sqrt((double)s->n) * out->se / fabs(r);
	}
}
