## Tests of the MGSim counter view (issue 6).
check_PROGRAMS += tests/mgsim_unit
tests_mgsim_unit_SOURCES = tests/mgsim_unit.c tests/tap.h
tests_mgsim_unit_LDADD = $(MICA_LIBS)
TESTS += tests/mgsim_unit
check_PROGRAMS += tests/mgsim_live
tests_mgsim_live_SOURCES = tests/mgsim_live.c tests/tap.h
tests_mgsim_live_LDADD = libmicad.a $(MICA_LIBS) $(SAMPLE_LIBS) $(AX_PTHREAD_LIBS)
TESTS += tests/mgsim_live
check_PROGRAMS += tests/mgsim_store
tests_mgsim_store_SOURCES = tests/mgsim_store.c tests/tap.h
tests_mgsim_store_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
tests_mgsim_store_LDADD = libmicad.a $(MICA_LIBS) $(SAMPLE_LIBS) $(SQLITE_LIBS) $(AX_PTHREAD_LIBS) -lm
TESTS += tests/mgsim_store
check_PROGRAMS += tests/mgsim_trace
tests_mgsim_trace_SOURCES = tests/mgsim_trace.c
tests_mgsim_trace_LDADD = libmicad.a $(MICA_LIBS) $(SAMPLE_LIBS) $(AX_PTHREAD_LIBS)
TESTS += tests/mgsim_trace.sh tests/mgsim_futex.sh
EXTRA_DIST += tests/mgsim_trace.sh tests/mgsim_futex.sh
## mgsim_trace.sh runs these.
check_SCRIPTS += tests/asm/rep tests/asm/memops tests/asm/threads tests/asm/forkexec \
	tests/asm/branches tests/asm/futex tests/cprog/static_prog
