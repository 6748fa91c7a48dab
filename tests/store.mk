## Storage tests (results database).
check_PROGRAMS += tests/store_test
tests_store_test_SOURCES = tests/store_test.c tests/tap.h
tests_store_test_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
tests_store_test_LDADD = libmicad.a $(MICA_LIBS) $(SQLITE_LIBS) -lm
TESTS += tests/store_test
