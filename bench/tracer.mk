## Tracer benchmarks (issue 3): 'make bench-tracer' (also via 'make bench').
bench/step_bench: $(top_srcdir)/bench/step_bench.c
	@$(MKDIR_P) bench
	$(AM_V_CC)$(CC) -O2 -o $@ $(top_srcdir)/bench/step_bench.c
bench/spin: $(top_srcdir)/bench/spin.S
	@$(MKDIR_P) bench
	$(AM_V_CC)$(CC) -nostdlib -static -o $@ $(top_srcdir)/bench/spin.S
bench-tracer: micad bench/step_bench bench/spin
	top_builddir=. $(SHELL) $(top_srcdir)/bench/step_bench.sh
bench: bench-tracer
.PHONY: bench bench-tracer
CLEANFILES += bench/step_bench bench/spin
EXTRA_DIST += bench/step_bench.c bench/spin.S bench/step_bench.sh
