## The valgrind engine (issue 19): 'make bench-valgrind' (or bench-engine),
## not part of 'make bench': it takes minutes and needs valgrind.  Its
## programs are targets, built without the build's CFLAGS.
bench/vg_compute: $(top_srcdir)/bench/vg_compute.c
	@$(MKDIR_P) bench
	$(AM_V_CC)$(CC) -O2 -o $@ $(top_srcdir)/bench/vg_compute.c
bench/vg_chase: $(top_srcdir)/bench/vg_chase.c
	@$(MKDIR_P) bench
	$(AM_V_CC)$(CC) -O2 -o $@ $(top_srcdir)/bench/vg_chase.c
bench-valgrind: micad bench/vg_compute bench/vg_chase
	top_builddir=. $(SHELL) $(top_srcdir)/bench/vg_bench.sh
bench-engine: bench-valgrind
.PHONY: bench-valgrind bench-engine
CLEANFILES += bench/vg_compute bench/vg_chase
EXTRA_DIST += bench/vg_compute.c bench/vg_chase.c bench/vg_bench.sh
