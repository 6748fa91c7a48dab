## Scheduling analyzer tests (issue 7).
check_PROGRAMS += tests/sched_map_names
tests_sched_map_names_SOURCES = tests/sched_map_names.c
tests_sched_map_names_LDADD = libmicad.a $(MICA_LIBS)
TESTS += tests/sched_map_bhive.sh tests/sched_vs_llvm_mca.sh tests/mca_cli.sh
EXTRA_DIST += tests/sched_map_bhive.sh tests/sched_vs_llvm_mca.sh tests/mca_cli.sh \
	tests/sched_kernels
