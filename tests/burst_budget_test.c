/*
 * Sample mode's burst placement and budget (burst_budget.h) on made-up
 * times: the period from the bursts' length, jitter over the whole
 * period, the guard's exact boundary, catching up after a held-back
 * burst, and placement by instruction samples.
 */
#include "config.h"

#include "tap.h"
#include "trace/burst_budget.h"

#define MS 1000000ULL

static void
test_period(void)
{
	struct burst_budget b;

	burst_budget_init(&b, 0.05, 3000, false, 1000 * MS, 42);
	/* Before any burst: 10 us per step, 30 ms; at 80% of 5%: 750 ms. */
	is_u64((uint64_t)burst_budget_expected_ns(&b), 30 * MS, "first estimate: 3000 steps times 10 us");
	is_u64(burst_budget_period_ns(&b), 750 * MS, "period: 30 ms / (80%% of 5%%)");
	ok(b.next_ns >= 1000 * MS && b.next_ns < 1750 * MS,
	   "the first burst is placed within the first period (from t0)");
	burst_budget_held(&b, 10 * MS, true);
	is_u64((uint64_t)burst_budget_expected_ns(&b), 10 * MS, "a burst's length becomes the estimate");
	is_u64(burst_budget_period_ns(&b), 250 * MS, "period from it: 10 ms / 4%%");
	burst_budget_held(&b, 50 * MS, true);
	is_u64((uint64_t)burst_budget_expected_ns(&b), 20 * MS, "then an average: 3/4 old + 1/4 new");
	burst_budget_held(&b, 1 * MS, false);
	is_u64((uint64_t)burst_budget_expected_ns(&b), 20 * MS,
	       "an interrupt given up is held time, not a burst's length");
	is_u64(b.held_ns, 61 * MS, "all of it is held time");
}

static void
test_jitter(void)
{
	struct burst_budget b;
	double sum = 0, lo = 1, hi = 0;
	unsigned bins[10] = { 0 };
	bool inside = true;
	unsigned n = 2000;

	burst_budget_init(&b, 0.05, 3000, false, 0, 7);
	for (unsigned i = 0; i < n; i++) {
		uint64_t p = burst_budget_period_ns(&b);
		double x = (double)(b.next_ns - b.period_start_ns) / (double)p;

		inside &= b.next_ns >= b.period_start_ns && b.next_ns < b.period_start_ns + p;
		sum += x;
		lo = x < lo ? x : lo;
		hi = x > hi ? x : hi;
		bins[(int)(x * 10)]++;
		burst_budget_next(&b, b.next_ns);
	}
	ok(inside, "every burst is placed inside its own period");
	ok(sum / n > 0.45 && sum / n < 0.55, "offsets average half a period (%.3f)", sum / n);
	ok(lo < 0.01 && hi > 0.99, "offsets reach both ends of the period (%.4f .. %.4f)", lo, hi);
	{
		bool flat = true;

		for (int i = 0; i < 10; i++)
			flat &= bins[i] > n / 10 * 7 / 10 && bins[i] < n / 10 * 13 / 10;
		ok(flat, "offsets are uniform: each tenth of the period holds 10 +- 3%% of them");
	}
}

static void
test_guard(void)
{
	struct burst_budget b;

	/* 5%, 30 ms expected: room once 30 <= 0.05 (t + 30), t >= 570 ms. */
	burst_budget_init(&b, 0.05, 3000, false, 0, 1);
	ok(!burst_budget_room(&b, 569 * MS), "no room at 569 ms for a 30 ms burst at 5%%");
	ok(burst_budget_room(&b, 571 * MS), "room at 571 ms");
	burst_budget_held(&b, 30 * MS, true);
	/* Held 30, next 30: 60 <= 0.05 (t + 30): t >= 1170 ms. */
	ok(!burst_budget_room(&b, 1169 * MS), "after one burst: no room at 1169 ms");
	ok(burst_budget_room(&b, 1171 * MS), "after one burst: room at 1171 ms");
}

static void
test_catch_up(void)
{
	struct burst_budget b;
	uint64_t p;

	burst_budget_init(&b, 0.05, 3000, false, 0, 3);
	p = burst_budget_period_ns(&b);
	/* The burst was held back by two periods and more: the next
	 * period starts at the burst, not in the past. */
	burst_budget_next(&b, 3 * p);
	is_u64(b.period_start_ns, 3 * p, "held back: the next period starts now");
	ok(b.next_ns >= 3 * p && b.next_ns < 4 * p, "and the next burst is placed in it");
	burst_budget_next(&b, 3 * p + p / 2);
	is_u64(b.period_start_ns, 4 * p, "on time: periods follow each other");
	ok(!burst_budget_due(&b, b.next_ns - 1) && burst_budget_due(&b, b.next_ns),
	   "by time: due from the placed point on");
}

static void
test_instructions(void)
{
	struct burst_budget b;
	uint64_t p, per, k;
	bool exact = true;

	burst_budget_init(&b, 0.05, 3000, true, 0, 11);
	/* 1000 samples in the first second. */
	for (int i = 0; i < 1000; i++)
		burst_budget_due(&b, (uint64_t)i * MS);
	p = burst_budget_period_ns(&b);
	burst_budget_next(&b, 1000 * MS);
	per = p / MS;	/* samples expected in a period at 1 per ms */
	ok(b.at_sample >= 1 && b.at_sample <= per + 1,
	   "by instructions: the burst is at one of the period's %llu expected samples (%llu)",
	   (unsigned long long)per, (unsigned long long)b.at_sample);
	k = b.at_sample;
	for (uint64_t i = 1; i < k; i++)
		exact &= !burst_budget_due(&b, 0);
	ok(exact && burst_budget_due(&b, 0), "by instructions: due at exactly that sample, whatever the time");
}

int
main(void)
{
	test_period();
	test_jitter();
	test_guard();
	test_catch_up();
	test_instructions();
	return done_testing();
}
