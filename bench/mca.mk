## Scheduling analyzer (issue 7): 'make bench-mca' (also via 'make bench').
## The accuracy and speed of micactl mca against BHive's measurements,
## side by side with llvm-mca-14, then the live model's feeding rate.
BHIVE_DIR = $(top_srcdir)/tests/data/bhive
bench/mca_live_bench: $(top_srcdir)/bench/mca_live_bench.c libmicad.a libmica.a
	@$(MKDIR_P) bench
	$(AM_V_CC)$(CC) $(DEFS) $(AM_CPPFLAGS) $(CPPFLAGS) $(MICAD_CFLAGS) -O2 -o $@ \
		$(top_srcdir)/bench/mca_live_bench.c libmicad.a $(MICA_LIBS)
bench-mca: micactl bench/mca_live_bench
	@if [ ! -r "$(BHIVE_DIR)/skl.csv" ]; then \
		echo "bench-mca: no BHive data in $(BHIVE_DIR) (skl.csv, hsw.csv, ivb.csv):" \
		     "the accuracy benchmark reads tests/data/bhive of the source tree" >&2; \
		exit 1; \
	fi
	python3 $(top_srcdir)/bench/mca_accuracy.py --micactl ./micactl --data $(BHIVE_DIR) \
		--json bench/mca_accuracy.json
	./bench/mca_live_bench
bench: bench-mca
.PHONY: bench-mca
CLEANFILES += bench/mca_live_bench bench/mca_accuracy.json
EXTRA_DIST += bench/mca_accuracy.py bench/mca_errors.py bench/mca_live_bench.c
