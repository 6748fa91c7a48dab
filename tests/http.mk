## HTTP server tests (issue 6): a fixture database built with the store
## API, a small server driver, the API and security tests with curl, and
## the browser test with headless Chromium.
check_PROGRAMS += tests/http_serve tests/http_fixture tests/http_raw
tests_http_serve_SOURCES = tests/http_serve.c
tests_http_serve_CFLAGS = $(AM_CFLAGS) $(MHD_CFLAGS)
tests_http_serve_LDADD = libmicad.a $(MICA_LIBS) $(SAMPLE_LIBS) $(SQLITE_LIBS) $(MHD_LIBS) $(ZLIB_LIBS) \
	$(AX_PTHREAD_LIBS)
tests_http_raw_SOURCES = tests/http_raw.c
tests_http_raw_LDADD = libmicad.a
tests_http_fixture_SOURCES = tests/http_fixture.c
tests_http_fixture_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
tests_http_fixture_LDADD = libmicad.a $(MICA_LIBS) $(SAMPLE_LIBS) $(SQLITE_LIBS) $(AX_PTHREAD_LIBS)

TESTS += tests/http_api.sh tests/http_sample.sh tests/http_security.sh tests/http_hardening.sh tests/http_scale.sh \
	tests/http_fresh.sh \
	tests/browser_ui.sh tests/browser_scale.sh tests/browser_sample.sh \
	tests/browser_daemon.sh
EXTRA_DIST += tests/http_lib.sh tests/http_api.sh tests/http_sample.sh tests/http_security.sh tests/http_hardening.sh \
	tests/http_fresh.sh \
	tests/http_scale.sh tests/browser_scale.sh tests/browser_sample.sh \
	tests/browser_ui.sh tests/browser_daemon.sh tests/browser_cdp.py tests/layout_check.py

## Number formatting of the JSON writer against printf (http_json.c), and
## the kept series pieces alone (http_pieces.c).
check_PROGRAMS += tests/http_json_test tests/http_pieces_test
tests_http_json_test_SOURCES = tests/http_json_test.c tests/tap.h
tests_http_json_test_CFLAGS = $(AM_CFLAGS) $(MHD_CFLAGS) $(SQLITE_CFLAGS)
tests_http_json_test_LDADD = libmicad.a $(SQLITE_LIBS) $(AX_PTHREAD_LIBS) -lm
tests_http_pieces_test_SOURCES = tests/http_pieces_test.c tests/tap.h
tests_http_pieces_test_CFLAGS = $(AM_CFLAGS) $(MHD_CFLAGS) $(SQLITE_CFLAGS)
tests_http_pieces_test_LDADD = libmicad.a $(AX_PTHREAD_LIBS)
TESTS += tests/http_json_test tests/http_pieces_test
