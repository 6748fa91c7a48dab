## Storage tests (results database).
check_PROGRAMS += tests/store_test
tests_store_test_SOURCES = tests/store_test.c tests/tap.h
tests_store_test_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
tests_store_test_LDADD = libmicad.a $(MICA_LIBS) $(SAMPLE_LIBS) $(SQLITE_LIBS) $(AX_PTHREAD_LIBS) -lm
TESTS += tests/store_test

## micad run/attach/replay write the per-user results database by default:
## in tests that is one under the build directory, never the user's own.
AM_TESTS_ENVIRONMENT += XDG_DATA_HOME='$(abs_top_builddir)/tests/xdg-data'; export XDG_DATA_HOME;
clean-local: clean-store-tests
clean-store-tests:
	-rm -rf tests/xdg-data
.PHONY: clean-store-tests
