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
tests_sample_stream_batches_SOURCES = tests/sample_stream.c daemon/session/trace_profile.c tests/tap.h
tests_sample_stream_batches_CPPFLAGS = $(AM_CPPFLAGS) -DPROFILE_MAX_PENDING=2
tests_sample_stream_batches_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
tests_sample_stream_batches_LDADD = libmicad.a $(MICA_LIBS) $(SQLITE_LIBS) $(AX_PTHREAD_LIBS) -lm
TESTS += tests/sample_stream_batches
TESTS += tests/sample_export.sh
EXTRA_DIST += tests/sample_export.sh

## Tests of sample mode's producer side (issue 18).

## The perf record parser on constructed records; the ring records as the
## consumer checks them and --dump-events prints them; burst placement and
## the budget on made-up times.
check_PROGRAMS += tests/perf_record_test tests/sample_rec_test tests/burst_budget_test
tests_burst_budget_test_SOURCES = tests/burst_budget_test.c
tests_burst_budget_test_LDADD = libmicad.a
tests_perf_record_test_SOURCES = tests/perf_record_test.c
tests_perf_record_test_LDADD = libmicad.a
tests_sample_rec_test_SOURCES = tests/sample_rec_test.c
tests_sample_rec_test_LDADD = libmicad.a $(MICA_LIBS) $(SAMPLE_LIBS) $(AX_PTHREAD_LIBS)

## Target programs with a known profile.  Their own rules (no $(CFLAGS):
## a sanitizer build must not change what they spend their time in):
## -O1 without inlining or sibling calls, so every call is a frame; frame
## pointers kept for --call-graph fp.  sample_hot links libsample_lib.so
## (found through its rpath) and dlopens libsample_dl.so (C++).
SAMPLE_CFLAGS = -O1 -g -fno-inline -fno-optimize-sibling-calls -fno-omit-frame-pointer
SAMPLE_PROGS = tests/cprog/sample_hot tests/cprog/libsample_lib.so \
	tests/cprog/libsample_dl.so tests/cprog/sample_threads tests/cprog/sample_vdso
check_SCRIPTS += $(SAMPLE_PROGS)
CLEANFILES += $(SAMPLE_PROGS)
EXTRA_DIST += tests/cprog/sample_hot.c tests/cprog/sample_lib.c tests/cprog/sample_lib.h \
	tests/cprog/sample_dl.cc tests/cprog/sample_threads.c tests/cprog/sample_vdso.c

tests/cprog/libsample_lib.so: $(top_srcdir)/tests/cprog/sample_lib.c
	@$(MKDIR_P) tests/cprog
	$(AM_V_CC)$(CC) $(SAMPLE_CFLAGS) -fPIC -shared -o $@ $(top_srcdir)/tests/cprog/sample_lib.c

tests/cprog/libsample_dl.so: $(top_srcdir)/tests/cprog/sample_dl.cc
	@$(MKDIR_P) tests/cprog
	$(AM_V_CC)$(CXX) $(SAMPLE_CFLAGS) -fPIC -shared -o $@ $(top_srcdir)/tests/cprog/sample_dl.cc

tests/cprog/sample_hot: $(top_srcdir)/tests/cprog/sample_hot.c tests/cprog/libsample_lib.so
	$(AM_V_CC)$(CC) $(SAMPLE_CFLAGS) -I$(top_srcdir)/tests/cprog -o $@ \
		$(top_srcdir)/tests/cprog/sample_hot.c -Ltests/cprog -lsample_lib \
		-Wl,-rpath,$(abs_builddir)/tests/cprog -ldl

tests/cprog/sample_vdso: $(top_srcdir)/tests/cprog/sample_vdso.c
	@$(MKDIR_P) tests/cprog
	$(AM_V_CC)$(CC) $(SAMPLE_CFLAGS) -o $@ $(top_srcdir)/tests/cprog/sample_vdso.c

tests/cprog/sample_threads: $(top_srcdir)/tests/cprog/sample_threads.c
	@$(MKDIR_P) tests/cprog
	$(AM_V_CC)$(CC) -O1 -pthread -o $@ $(top_srcdir)/tests/cprog/sample_threads.c

TESTS += tests/perf_record_test tests/sample_rec_test tests/burst_budget_test tests/sample_event.sh tests/sample_profile.sh \
	tests/sample_bursts.sh tests/sample_attach.sh tests/sample_daemon.sh tests/sample_accuracy.sh
EXTRA_DIST += tests/sample_accuracy.sh tests/sample_event.sh tests/sample_profile.sh tests/sample_bursts.sh \
	tests/sample_attach.sh tests/sample_daemon.sh tests/sample_lib.sh
