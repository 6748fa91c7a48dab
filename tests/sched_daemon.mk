## Tests of the live scheduling model in the daemon (issue 7, "Live, in
## the daemon").
check_PROGRAMS += tests/sched_daemon_feed
tests_sched_daemon_feed_SOURCES = tests/sched_daemon_feed.c
tests_sched_daemon_feed_LDADD = libmicad.a $(MICA_LIBS) $(SAMPLE_LIBS) $(AX_PTHREAD_LIBS)
TESTS += tests/sched_daemon.sh
EXTRA_DIST += tests/sched_daemon.sh
check_SCRIPTS += tests/asm/loop tests/asm/threads
TESTS += tests/sched_daemon_http.sh
EXTRA_DIST += tests/sched_daemon_http.sh
