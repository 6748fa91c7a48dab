## Tests of sample mode's analysis side (issue 18): the ratio estimator,
## the analyzers across bursts, and a fabricated record stream through
## the daemon's consumers into the database.
check_PROGRAMS += tests/sample_estimate
tests_sample_estimate_SOURCES = tests/sample_estimate.c tests/tap.h
tests_sample_estimate_LDADD = $(MICA_LIBS)
TESTS += tests/sample_estimate
check_PROGRAMS += tests/mica_sample
tests_mica_sample_SOURCES = tests/mica_sample.c tests/tap.h
tests_mica_sample_LDADD = $(MICA_LIBS)
TESTS += tests/mica_sample
