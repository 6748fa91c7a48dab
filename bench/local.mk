## Benchmarks: built by 'make bench', never part of 'make check'.
include bench/tracer.mk

## MICA analyses (issue 4): 'make bench-mica' (also via 'make bench').
bench/mica_bench: $(top_srcdir)/bench/mica_bench.c libmica.a
	@$(MKDIR_P) bench
	$(AM_V_CC)$(CC) $(DEFS) $(AM_CPPFLAGS) $(CPPFLAGS) $(MICAD_CFLAGS) -O2 -o $@ \
		$(top_srcdir)/bench/mica_bench.c $(MICA_LIBS)
bench-mica: bench/mica_bench
	./bench/mica_bench
bench: bench-mica
.PHONY: bench-mica
CLEANFILES += bench/mica_bench
EXTRA_DIST += bench/mica_bench.c
include bench/mca.mk
include bench/http.mk
include bench/vgengine.mk
