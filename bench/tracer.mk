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

## Sample mode (issue 18): 'make bench-sample' (not part of 'make bench':
## it wants perf, takes about ten minutes, and its figures move with the
## machine's load).  The program is static assembly (no libc), so its own
## rule: no $(CFLAGS); --eh-frame-hdr, which gcc leaves out of static
## links, for dwarf stacks.
bench/sample_phases: $(top_srcdir)/bench/sample_phases.S
	@$(MKDIR_P) bench
	$(AM_V_CC)$(CC) -nostdlib -static -Wl,--eh-frame-hdr -o $@ $(top_srcdir)/bench/sample_phases.S
bench-sample: micad bench/sample_phases
	top_builddir=. top_srcdir=$(top_srcdir) $(SHELL) $(top_srcdir)/bench/sample_bench.sh
.PHONY: bench-sample
CLEANFILES += bench/sample_phases
EXTRA_DIST += bench/sample_phases.S bench/sample_bench.sh bench/sample_cover.py
