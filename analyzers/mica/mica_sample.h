/*
 * MICA's metrics as ratio estimators (spec performance.md §3.3): in sample
 * mode every metric of the database's `metric` view that is a ratio of two
 * counts is estimated from the bursts' measured units, unit i giving the
 * numerator y_i and the denominator x_i of exactly the view's ratio, so
 * that sum(y) / sum(x) over an interval's units is the view's value
 * computed from the interval's summed counts:
 *
 *   ilp_W, ilp_one_W              y = instructions (E)  x = cycles of window W
 *   mix_G                         y = group G's count   x = E
 *   mispredict_O_H                y = misses            x = conditional branches (B)
 *   mpki_O_H                      y = 1000 * misses     x = E
 *   taken_rate, transition_rate   y = TK, TR (folded)   x = B
 *   avg_register_operands         y = totOps            x = E
 *   avg_degree_of_use             y = totUses           x = nVals
 *   dependency_distance_le_D      y = c_D               x = nReads
 *   stride_KIND_le_L              y = count <= L        x = reads (or writes)
 *   reuse_bucket_K, reuse_cdf_K   y = bucket K, 0..K    x = refs
 *   reuse_cold, reuse_censored    y = cold, censored    x = refs
 *
 * The footprints are sets, not ratios: no estimate.  Folded counts (TK,
 * TR) are folded per unit, as MICA folds per interval.  Pure: no I/O.
 */
#ifndef MICAD_MICA_SAMPLE_H
#define MICAD_MICA_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "mica/mica.h"
#include "mica/ratio_estimate.h"

enum mica_metric_kind {
	MICA_M_ILP,		/* arg: the window's index in mica_ilp_result */
	MICA_M_ILP_ONE,
	MICA_M_MIX,		/* arg: the itypes group (n_groups: the catch-all) */
	MICA_M_MISPREDICT,	/* arg: the ppm_predictor id, length * 4 + organization */
	MICA_M_MPKI,
	MICA_M_TAKEN,
	MICA_M_TRANSITION,
	MICA_M_REG_OPERANDS,
	MICA_M_DEGREE_OF_USE,
	MICA_M_DEP_DISTANCE,	/* arg: 0..6, distance 1, 2, 4, ... 64 */
	MICA_M_STRIDE,		/* arg: kind * 7 + threshold (local_read, global_read,
				 * local_write, global_write; 0, 8, ... 262144) */
	MICA_M_REUSE_BUCKET,	/* arg: bucket */
	MICA_M_REUSE_CDF,	/* arg: the last bucket summed */
	MICA_M_REUSE_COLD,
	MICA_M_REUSE_CENSORED,
};

struct mica_metric {
	uint8_t kind;		/* enum mica_metric_kind */
	uint16_t arg;
	struct ratio_sums sums;
};

/*
 * The ratio metrics of the analyses of shape (its analyses, ILP windows
 * and itypes groups), in a fixed order, into out (NULL: only count them).
 * Returns how many.  Every sums is zero.
 */
size_t mica_metrics_list(const struct mica_interval *shape, struct mica_metric *out);

/* Unit u's numerator and denominator of m. */
void mica_metric_unit(const struct mica_metric *m, const struct mica_interval *u,
		      uint64_t *x, uint64_t *y);

/*
 * The name the `metric` view gives m ('ilp_32', 'mispredict_GAs_12',
 * 'stride_local_read_le_8', 'reuse_cdf_3', ...) into buf; shape gives the
 * ILP windows.  A mix metric is "mix_" and the group number here: the
 * view (and the store) name it by the session's itypes_group name.
 */
void mica_metric_name(const struct mica_metric *m, const struct mica_interval *shape,
		      char *buf, size_t size);

/*
 * Add unit u's counts to acc (same analyses and shapes; acc's itypes
 * counts must be writable storage of n_groups + 1 counts).  The
 * memstackdist horizon is the smaller one; first: acc had no unit yet.
 * memfootprint is left alone (a set of the interval, not a sum).
 */
void mica_interval_add(struct mica_interval *acc, const struct mica_interval *u, bool first);

#endif /* MICAD_MICA_SAMPLE_H */
