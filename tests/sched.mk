## Scheduling analyzer tests (issue 7).
check_PROGRAMS += tests/sched_map_names tests/sched_uarch_test tests/sched_live_test \
	tests/sched_stall_test
tests_sched_map_names_SOURCES = tests/sched_map_names.c
tests_sched_map_names_LDADD = libmicad.a $(MICA_LIBS) $(SAMPLE_LIBS)
tests_sched_uarch_test_SOURCES = tests/sched_uarch_test.c
tests_sched_uarch_test_LDADD = libmicad.a $(MICA_LIBS) $(SAMPLE_LIBS)
tests_sched_live_test_SOURCES = tests/sched_live_test.c
tests_sched_live_test_LDADD = libmicad.a $(MICA_LIBS) $(SAMPLE_LIBS)
tests_sched_stall_test_SOURCES = tests/sched_stall_test.c
tests_sched_stall_test_LDADD = libmicad.a $(MICA_LIBS) $(SAMPLE_LIBS)
TESTS += tests/sched_map_bhive.sh tests/sched_vs_llvm_mca.sh tests/mca_cli.sh tests/mca_llvm_corpus.sh tests/mca_llvm_layout.sh \
	tests/sched_uarch_test tests/sched_live_test tests/sched_stall_test \
	tests/sched_bhive_accuracy.sh tests/sched_bhive_vs_llvm_mca.sh
EXTRA_DIST += tests/sched_map_bhive.sh tests/sched_vs_llvm_mca.sh tests/mca_cli.sh tests/mca_llvm_corpus.sh tests/mca_llvm_layout.sh \
	tests/mca_llvm_corpus.exceptions tests/llvm-mca \
	tests/sched_bhive_accuracy.sh tests/sched_bhive_vs_llvm_mca.sh tests/sched_kernels \
	tests/data/bhive
