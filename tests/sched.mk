## Scheduling analyzer tests (issue 7).
check_PROGRAMS += tests/sched_map_names tests/sched_sim
tests_sched_map_names_SOURCES = tests/sched_map_names.c
tests_sched_map_names_LDADD = $(MICA_LIBS)
tests_sched_sim_SOURCES = tests/sched_sim.c tests/tap.h
tests_sched_sim_LDADD = $(MICA_LIBS)
TESTS += tests/sched_sim tests/sched_map_bhive.sh tests/sched_vs_llvm_mca.sh tests/mca_cli.sh
EXTRA_DIST += tests/sched_map_bhive.sh tests/sched_vs_llvm_mca.sh tests/mca_cli.sh
