/*
 * Tables with an element per static instruction (sid_table.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "mica/sid_table.h"

void *
mica_sid_table_grow(void *t, size_t *n, size_t want, size_t sz, int fill)
{
	size_t cap = *n ? *n : 256;

	while (cap < want)
		cap *= 2;
	char *p = realloc(t, cap * sz);

	if (!p)
		return NULL;
	memset(p + *n * sz, fill, (cap - *n) * sz);
	*n = cap;
	return p;
}
