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
check_PROGRAMS += tests/sample_stream
tests_sample_stream_SOURCES = tests/sample_stream.c tests/tap.h
tests_sample_stream_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
tests_sample_stream_LDADD = libmicad.a $(MICA_LIBS) $(SQLITE_LIBS) $(AX_PTHREAD_LIBS) -lm
check_SCRIPTS += tests/asm/loop tests/asm/memops
TESTS += tests/sample_stream
# The same with the profile's batches every 2 samples (its own copy of
# trace_profile.c, linked before libmicad.a's): rows split over batches
# add up to the same.
check_PROGRAMS += tests/sample_stream_batches
tests_sample_stream_batches_SOURCES = tests/sample_stream.c daemon/trace_profile.c tests/tap.h
tests_sample_stream_batches_CPPFLAGS = $(AM_CPPFLAGS) -DPROFILE_MAX_PENDING=2
tests_sample_stream_batches_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
tests_sample_stream_batches_LDADD = libmicad.a $(MICA_LIBS) $(SQLITE_LIBS) $(AX_PTHREAD_LIBS) -lm
TESTS += tests/sample_stream_batches
TESTS += tests/sample_export.sh
EXTRA_DIST += tests/sample_export.sh
