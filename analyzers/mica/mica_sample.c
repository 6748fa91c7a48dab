/*
 * MICA's metrics as ratio estimators, and the sum of measured units
 * (mica_sample.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "mica/mica_output.h"
#include "mica/mica_sample.h"

static const char *const ppm_orgs[MICA_PPM_ORGS] = { "GAg", "PAg", "GAs", "PAs" };
static const unsigned ppm_lengths[MICA_PPM_LENGTHS] = { 4, 8, 12 };
static const unsigned reg_dist[MICA_REG_CUM] = { 1, 2, 4, 8, 16, 32, 64 };
static const char *const stride_kinds[4] = {
	"local_read", "global_read", "local_write", "global_write"
};
static const unsigned stride_le[MICA_STRIDE_CUM] = { 0, 8, 64, 512, 4096, 32768, 262144 };

static size_t
put(struct mica_metric *out, size_t n, enum mica_metric_kind kind, unsigned arg)
{
	if (out) {
		memset(&out[n], 0, sizeof(out[n]));
		out[n].kind = (uint8_t)kind;
		out[n].arg = (uint16_t)arg;
	}
	return n + 1;
}

size_t
mica_metrics_list(const struct mica_interval *shape, struct mica_metric *out)
{
	unsigned a = shape->analyses;
	size_t n = 0;

	if (a & MICA_BIT(MICA_ILP))
		for (unsigned w = 0; w < shape->ilp.n_windows; w++)
			n = put(out, n, MICA_M_ILP, w);
	if (a & MICA_BIT(MICA_ILP_ONE))
		n = put(out, n, MICA_M_ILP_ONE, 0);
	if (a & MICA_BIT(MICA_ITYPES))
		for (unsigned g = 0; g <= shape->itypes.n_groups; g++)
			n = put(out, n, MICA_M_MIX, g);
	if (a & MICA_BIT(MICA_PPM)) {
		for (unsigned p = 0; p < MICA_PPM_LENGTHS * MICA_PPM_ORGS; p++)
			n = put(out, n, MICA_M_MISPREDICT, p);
		for (unsigned p = 0; p < MICA_PPM_LENGTHS * MICA_PPM_ORGS; p++)
			n = put(out, n, MICA_M_MPKI, p);
		n = put(out, n, MICA_M_TAKEN, 0);
		n = put(out, n, MICA_M_TRANSITION, 0);
	}
	if (a & MICA_BIT(MICA_REG)) {
		n = put(out, n, MICA_M_REG_OPERANDS, 0);
		n = put(out, n, MICA_M_DEGREE_OF_USE, 0);
		for (unsigned d = 0; d < MICA_REG_CUM; d++)
			n = put(out, n, MICA_M_DEP_DISTANCE, d);
	}
	if (a & MICA_BIT(MICA_STRIDE))
		for (unsigned k = 0; k < 4 * MICA_STRIDE_CUM; k++)
			n = put(out, n, MICA_M_STRIDE, k);
	if (a & MICA_BIT(MICA_MEMSTACKDIST)) {
		for (unsigned b = 0; b < MICA_MSD_BUCKETS; b++)
			n = put(out, n, MICA_M_REUSE_BUCKET, b);
		for (unsigned b = 0; b < MICA_MSD_BUCKETS; b++)
			n = put(out, n, MICA_M_REUSE_CDF, b);
		n = put(out, n, MICA_M_REUSE_COLD, 0);
		n = put(out, n, MICA_M_REUSE_CENSORED, 0);
	}
	return n;
}

void
mica_metric_unit(const struct mica_metric *m, const struct mica_interval *u, uint64_t *x,
		 uint64_t *y)
{
	const struct mica_stride_result *s = &u->stride;
	const struct mica_memstackdist_result *d = &u->memstackdist;
	uint64_t reg[MICA_REG_NUMBERS];
	unsigned a = m->arg;

	*x = *y = 0;
	switch ((enum mica_metric_kind)m->kind) {
	case MICA_M_ILP:
		*x = u->ilp.cycles[a];
		*y = u->ins;
		break;
	case MICA_M_ILP_ONE:
		*x = u->ilp_one.cycles[0];
		*y = u->ins;
		break;
	case MICA_M_MIX:
		*x = u->ins;
		*y = u->itypes.counts[a];
		break;
	case MICA_M_MISPREDICT:
		*x = u->ppm.branches;
		*y = u->ppm.miss[a / MICA_PPM_ORGS][a % MICA_PPM_ORGS];
		break;
	case MICA_M_MPKI:
		*x = u->ins;
		*y = 1000 * u->ppm.miss[a / MICA_PPM_ORGS][a % MICA_PPM_ORGS];
		break;
	case MICA_M_TAKEN:
		*x = u->ppm.branches;
		*y = u->ppm.taken;
		break;
	case MICA_M_TRANSITION:
		*x = u->ppm.branches;
		*y = u->ppm.transitions;
		break;
	case MICA_M_REG_OPERANDS:
	case MICA_M_DEGREE_OF_USE:
	case MICA_M_DEP_DISTANCE:
		/* totOps nVals totUses nReads c1 ... c64 */
		mica_reg_numbers(&u->reg, reg);
		if (m->kind == MICA_M_REG_OPERANDS) {
			*x = u->ins;
			*y = reg[0];
		} else if (m->kind == MICA_M_DEGREE_OF_USE) {
			*x = reg[1];
			*y = reg[2];
		} else {
			*x = reg[3];
			*y = reg[4 + a];
		}
		break;
	case MICA_M_STRIDE: {
		const uint64_t *cum[4] = { s->local_read, s->global_read, s->local_write,
					   s->global_write };
		unsigned k = a / MICA_STRIDE_CUM;

		*x = k < 2 ? s->reads : s->writes;
		*y = cum[k][a % MICA_STRIDE_CUM];
		break;
	}
	case MICA_M_REUSE_BUCKET:
		*x = d->refs;
		*y = d->bucket[a];
		break;
	case MICA_M_REUSE_CDF:
		*x = d->refs;
		for (unsigned b = 0; b <= a; b++)
			*y += d->bucket[b];
		break;
	case MICA_M_REUSE_COLD:
		*x = d->refs;
		*y = d->cold;
		break;
	case MICA_M_REUSE_CENSORED:
		*x = d->refs;
		*y = d->censored;
		break;
	}
}

void
mica_metric_name(const struct mica_metric *m, const struct mica_interval *shape, char *buf,
		 size_t size)
{
	unsigned a = m->arg;

	switch ((enum mica_metric_kind)m->kind) {
	case MICA_M_ILP:
		snprintf(buf, size, "ilp_%u", (unsigned)shape->ilp.window[a]);
		break;
	case MICA_M_ILP_ONE:
		snprintf(buf, size, "ilp_one_%u", (unsigned)shape->ilp_one.window[0]);
		break;
	case MICA_M_MIX:
		snprintf(buf, size, "mix_%u", a);
		break;
	case MICA_M_MISPREDICT:
	case MICA_M_MPKI:
		snprintf(buf, size, "%s_%s_%u", m->kind == MICA_M_MPKI ? "mpki" : "mispredict",
			 ppm_orgs[a % MICA_PPM_ORGS], ppm_lengths[a / MICA_PPM_ORGS]);
		break;
	case MICA_M_TAKEN:
		snprintf(buf, size, "taken_rate");
		break;
	case MICA_M_TRANSITION:
		snprintf(buf, size, "transition_rate");
		break;
	case MICA_M_REG_OPERANDS:
		snprintf(buf, size, "avg_register_operands");
		break;
	case MICA_M_DEGREE_OF_USE:
		snprintf(buf, size, "avg_degree_of_use");
		break;
	case MICA_M_DEP_DISTANCE:
		snprintf(buf, size, "dependency_distance_le_%u", reg_dist[a]);
		break;
	case MICA_M_STRIDE:
		snprintf(buf, size, "stride_%s_le_%u", stride_kinds[a / MICA_STRIDE_CUM],
			 stride_le[a % MICA_STRIDE_CUM]);
		break;
	case MICA_M_REUSE_BUCKET:
		snprintf(buf, size, "reuse_bucket_%u", a);
		break;
	case MICA_M_REUSE_CDF:
		snprintf(buf, size, "reuse_cdf_%u", a);
		break;
	case MICA_M_REUSE_COLD:
		snprintf(buf, size, "reuse_cold");
		break;
	case MICA_M_REUSE_CENSORED:
		snprintf(buf, size, "reuse_censored");
		break;
	}
}

static void
add_n(uint64_t *a, const uint64_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		a[i] += b[i];
}

void
mica_interval_add(struct mica_interval *acc, const struct mica_interval *u, bool first)
{
	unsigned a = u->analyses;

	acc->ins += u->ins;
	acc->ins_aligned += u->ins_aligned;
	if (a & MICA_BIT(MICA_ILP))
		add_n(acc->ilp.cycles, u->ilp.cycles, u->ilp.n_windows);
	if (a & MICA_BIT(MICA_ILP_ONE))
		add_n(acc->ilp_one.cycles, u->ilp_one.cycles, u->ilp_one.n_windows);
	if (a & MICA_BIT(MICA_ITYPES))
		add_n((uint64_t *)acc->itypes.counts, u->itypes.counts, u->itypes.n_groups + 1);
	if (a & MICA_BIT(MICA_PPM)) {
		add_n(&acc->ppm.miss[0][0], &u->ppm.miss[0][0], MICA_PPM_LENGTHS * MICA_PPM_ORGS);
		acc->ppm.branches += u->ppm.branches;
		acc->ppm.transitions += u->ppm.transitions;
		acc->ppm.taken += u->ppm.taken;
	}
	if (a & MICA_BIT(MICA_REG)) {
		add_n(acc->reg.op_count, u->reg.op_count, MICA_REG_OPS);
		add_n(acc->reg.use_dist, u->reg.use_dist, MICA_REG_HIST);
		add_n(acc->reg.age_dist, u->reg.age_dist, MICA_REG_HIST);
	}
	if (a & MICA_BIT(MICA_STRIDE)) {
		struct mica_stride_result *s = &acc->stride;

		s->reads += u->stride.reads;
		s->writes += u->stride.writes;
		s->first_reads += u->stride.first_reads;
		s->first_writes += u->stride.first_writes;
		add_n(s->local_read, u->stride.local_read, MICA_STRIDE_CUM);
		add_n(s->global_read, u->stride.global_read, MICA_STRIDE_CUM);
		add_n(s->local_write, u->stride.local_write, MICA_STRIDE_CUM);
		add_n(s->global_write, u->stride.global_write, MICA_STRIDE_CUM);
	}
	if (a & MICA_BIT(MICA_MEMSTACKDIST)) {
		struct mica_memstackdist_result *d = &acc->memstackdist;

		d->refs += u->memstackdist.refs;
		d->cold += u->memstackdist.cold;
		d->censored += u->memstackdist.censored;
		add_n(d->bucket, u->memstackdist.bucket, MICA_MSD_BUCKETS);
		if (first || u->memstackdist.horizon < d->horizon)
			d->horizon = u->memstackdist.horizon;
	}
}
