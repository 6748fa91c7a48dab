/*
 * The SPSC event ring: records of varying size cross from a producer
 * thread to the consumer intact and in order, through many wrap-arounds.
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>

#include "tap.h"
#include "trace/ring.h"

#define N_RECORDS 200000

static size_t
rec_len(uint32_t i)
{
	return 8 + (i * 2654435761u) % 300;
}

static void *
producer(void *arg)
{
	struct ring *r = arg;

	for (uint32_t i = 0; i < N_RECORDS; i++) {
		size_t len = rec_len(i);
		uint8_t *p = ring_reserve(r, 1 + i % 3, len);

		for (size_t k = 0; k < len; k++)
			p[k] = (uint8_t)(i + k);
		ring_commit(r);
	}
	ring_close(r);
	return NULL;
}

int
main(void)
{
	struct ring *r = ring_new(1);
	pthread_t th;
	uint32_t n = 0, bad = 0;
	const void *data;
	size_t len;
	uint32_t type;
	uint64_t pw, cw;

	ok(ring_max_record(r) >= 4096, "a minimal ring still takes records of 4 KiB");
	pthread_create(&th, NULL, producer, r);
	while ((type = ring_peek(r, &data, &len)) != RING_END) {
		const uint8_t *p = data;

		if (type != 1 + n % 3 || len != rec_len(n))
			bad++;
		else
			for (size_t k = 0; k < len; k++)
				if (p[k] != (uint8_t)(n + k)) {
					bad++;
					break;
				}
		ring_release(r);
		n++;
	}
	pthread_join(th, NULL);
	is_u64(n, N_RECORDS, "every record arrives");
	is_u64(bad, 0, "every record arrives intact, in order, with its type");
	ring_get_waits(r, &pw, &cw);
	diag("producer waits %llu, consumer waits %llu", (unsigned long long)pw, (unsigned long long)cw);
	ring_free(r);
	return done_testing();
}
