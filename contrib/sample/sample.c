/*
 * The bundled sample program for micad's quick start: a little of what
 * MICA measures (a dense loop nest, a pointer chase, a branchy search,
 * string operations), small enough to trace every instruction in a couple
 * of seconds (about 10^5 instructions, static glibc start-up included).
 */
#include <stdio.h>
#include <string.h>

#define N 12
#define NODES 256

static double a[N][N], b[N][N], c[N][N];
static struct node { struct node *next; long v; } nodes[NODES];
static int sorted[NODES];
static char buf1[512], buf2[512];

static void
matmul(void)
{
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			a[i][j] = i + j;
			b[i][j] = i - j;
		}
	for (int i = 0; i < N; i++)
		for (int j = 0; j < N; j++) {
			double s = 0;

			for (int k = 0; k < N; k++)
				s += a[i][k] * b[k][j];
			c[i][j] = s;
		}
}

static long
chase(void)
{
	long sum = 0;

	/* A permutation with stride 97 (coprime with 256): a long cycle. */
	for (int i = 0; i < NODES; i++) {
		nodes[i].next = &nodes[(i * 97 + 13) % NODES];
		nodes[i].v = i;
	}
	for (struct node *p = &nodes[0]; ; ) {
		sum += p->v;
		p = p->next;
		if (p == &nodes[0])
			break;
	}
	return sum;
}

static int
search(int key)
{
	int lo = 0, hi = NODES - 1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (sorted[mid] == key)
			return mid;
		if (sorted[mid] < key)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

int
main(void)
{
	int found = 0;

	matmul();
	for (int i = 0; i < NODES; i++)
		sorted[i] = 3 * i;
	for (int k = 0; k < 200; k += 3)
		found += search(k) >= 0;
	memset(buf1, 'x', sizeof(buf1));
	memcpy(buf2, buf1, sizeof(buf2));
	printf("c[3][5]=%g chase=%ld found=%d same=%d\n", c[3][5], chase(), found,
	       memcmp(buf1, buf2, sizeof(buf1)) == 0);
	return 0;
}
