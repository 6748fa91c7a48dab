## Sample mode's profile read back (issue 18): a fixture database with a
## known profile, the reader's queries, the folded and pprof exports, the
## profile API and the flame graph page.
check_PROGRAMS += tests/profile_fixture
tests_profile_fixture_SOURCES = tests/profile_fixture.c
tests_profile_fixture_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
tests_profile_fixture_LDADD = libmicad.a $(MICA_LIBS) $(SQLITE_LIBS) $(AX_PTHREAD_LIBS)

TESTS += tests/profile_export.sh tests/profile_api.sh tests/browser_profile.sh
EXTRA_DIST += tests/profile_export.sh tests/profile_api.sh tests/browser_profile.sh
check_PROGRAMS += tests/profile_read_test
tests_profile_read_test_SOURCES = tests/profile_read_test.c tests/tap.h
tests_profile_read_test_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
tests_profile_read_test_LDADD = libmicad.a $(MICA_LIBS) $(SQLITE_LIBS) $(AX_PTHREAD_LIBS) -lm
TESTS += tests/profile_read_test
