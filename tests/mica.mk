## Tests for issue mica (the MICA analyses) are listed here.
check_PROGRAMS += tests/mica_lru_stack tests/mica_unit tests/mica_progress tests/mica_ilp \
	tests/mica_ilp_rebase tests/mica_ppm
tests_mica_lru_stack_SOURCES = tests/mica_lru_stack.c
tests_mica_lru_stack_LDADD = $(MICA_LIBS)
tests_mica_unit_SOURCES = tests/mica_unit.c
tests_mica_unit_LDADD = $(MICA_LIBS)
tests_mica_ilp_SOURCES = tests/mica_ilp.c
tests_mica_ilp_LDADD = $(MICA_LIBS)
# The same with ilp.c moving its times down every 97 cycles (its own copy
# of ilp.c, linked before libmica.a's).
tests_mica_ilp_rebase_SOURCES = tests/mica_ilp.c analyzers/mica/ilp.c
tests_mica_ilp_rebase_CPPFLAGS = $(AM_CPPFLAGS) -DILP_REBASE=97
tests_mica_ilp_rebase_LDADD = $(MICA_LIBS)
tests_mica_ppm_SOURCES = tests/mica_ppm.c
tests_mica_ppm_LDADD = $(MICA_LIBS)
tests_mica_progress_SOURCES = tests/mica_progress.c
tests_mica_progress_LDADD = libmicad.a $(MICA_LIBS) $(SAMPLE_LIBS) $(SQLITE_LIBS) $(AX_PTHREAD_LIBS)
TESTS += tests/mica_lru_stack tests/mica_unit tests/mica_examples.sh tests/mica_progress \
	tests/mica_ilp tests/mica_ilp_rebase tests/mica_ppm tests/mica_threads.sh
EXTRA_DIST += tests/mica_examples.sh tests/mica tests/mica_threads.sh
