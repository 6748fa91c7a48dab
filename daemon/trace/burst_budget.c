/*
 * Sample mode's burst placement and budget (burst_budget.h).
 */
#include "config.h"
#include "trace/burst_budget.h"

#include <string.h>

/* A uniform draw in [0, 1) (xorshift64*: jitter, not cryptography). */
static double
uniform01(struct burst_budget *b)
{
	b->rng ^= b->rng >> 12;
	b->rng ^= b->rng << 25;
	b->rng ^= b->rng >> 27;
	return (double)((b->rng * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

double
burst_budget_expected_ns(const struct burst_budget *b)
{
	return b->avg_ns > 0 ? b->avg_ns : 10000.0 * b->steps;
}

uint64_t
burst_budget_period_ns(const struct burst_budget *b)
{
	double p = burst_budget_expected_ns(b) / (b->overhead * BURST_BUDGET_AIM);

	return p < 1e6 ? 1000000 : (uint64_t)(p + 0.5);
}

void
burst_budget_next(struct burst_budget *b, uint64_t now)
{
	uint64_t p = burst_budget_period_ns(b);

	b->period_start_ns += p;
	/* Behind (bursts were held back): the next period starts now. */
	if (b->period_start_ns + p < now)
		b->period_start_ns = now;
	b->next_ns = b->period_start_ns + (uint64_t)(uniform01(b) * (double)p);
	if (b->by_instructions) {
		double el = (double)(now - b->t0_ns);
		double per = el > 0 ? (double)b->samples / el * (double)p : 1;

		b->samples_in_period = 0;
		b->at_sample = 1 + (uint64_t)(uniform01(b) * (per < 1 ? 1 : per));
	}
}

void
burst_budget_init(struct burst_budget *b, double overhead, uint32_t steps, bool by_instructions,
		  uint64_t t0, uint64_t seed)
{
	memset(b, 0, sizeof(*b));
	b->overhead = overhead;
	b->steps = steps;
	b->by_instructions = by_instructions;
	b->t0_ns = t0;
	b->rng = seed ? seed : 0x9e3779b97f4a7c15ULL;
	/* burst_budget_next() moves on by one period: the first starts at t0. */
	b->period_start_ns = t0 - burst_budget_period_ns(b);
	burst_budget_next(b, t0);
}

bool
burst_budget_due(struct burst_budget *b, uint64_t time_ns)
{
	b->samples++;
	if (b->by_instructions)
		return ++b->samples_in_period >= b->at_sample;
	return time_ns >= b->next_ns;
}

bool
burst_budget_room(const struct burst_budget *b, uint64_t now)
{
	double next = burst_budget_expected_ns(b);

	return (double)b->held_ns + next <= b->overhead * ((double)(now - b->t0_ns) + next);
}

void
burst_budget_held(struct burst_budget *b, uint64_t held_ns, bool burst)
{
	b->held_ns += held_ns;
	if (burst)
		b->avg_ns = b->avg_ns > 0 ? 0.75 * b->avg_ns + 0.25 * (double)held_ns : (double)held_ns;
}
