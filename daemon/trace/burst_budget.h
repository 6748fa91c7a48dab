/*
 * Where sample mode's bursts go and how many there may be (pure: times
 * in, decisions out; tests/burst_budget_test.c).
 *
 * The budget: threads may be held for bursts overhead of the time (the
 * target's slowdown).  A burst's expected length is what bursts took
 * lately (an exponential average), or before the first one 10 us per
 * step (performance.md §2: 57-185 K steps/s pinned).  The period is one
 * such burst per 80% of the budget; a burst goes at a random point of its
 * period (jitter: it never aliases with the program's own periods, and
 * the i.i.d. confidence interval applies), by time, or when the event
 * counts retired instructions, at a random one of the samples the period
 * is expected to hold (instruction-weighted).  A burst starts only when
 * the budget has room for its expected length; the 20% slack keeps that
 * guard from moving bursts off their random points in the steady state.
 */
#ifndef MICAD_BURST_BUDGET_H
#define MICAD_BURST_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

#define BURST_BUDGET_AIM 0.8

struct burst_budget {
	double overhead;		/* fraction of the time */
	double steps;			/* W + U per burst */
	bool by_instructions;		/* place by samples, not time */
	uint64_t t0_ns;			/* start of the run */
	uint64_t held_ns;		/* time threads were held so far */
	double avg_ns;			/* recent bursts' length; 0: none yet */
	uint64_t period_start_ns, next_ns;
	uint64_t samples, samples_in_period, at_sample;
	uint64_t rng;
};

/* A run starting at t0 (the first period starts there), with its random
 * sequence seeded by seed. */
void burst_budget_init(struct burst_budget *b, double overhead, uint32_t steps,
		       bool by_instructions, uint64_t t0, uint64_t seed);

double burst_budget_expected_ns(const struct burst_budget *b);
uint64_t burst_budget_period_ns(const struct burst_budget *b);

/* A sample at time_ns: whether a burst is due at it (counted for the
 * instruction placement). */
bool burst_budget_due(struct burst_budget *b, uint64_t time_ns);

/* Whether the budget has room for a burst starting now. */
bool burst_budget_room(const struct burst_budget *b, uint64_t now);

/* A burst started now: place the next one in the next period. */
void burst_budget_next(struct burst_budget *b, uint64_t now);

/* A thread was held for held_ns: for a burst (its length goes into the
 * average), or for an interrupt given up before the burst began. */
void burst_budget_held(struct burst_budget *b, uint64_t held_ns, bool burst);

#endif /* MICAD_BURST_BUDGET_H */
