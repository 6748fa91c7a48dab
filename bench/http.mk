## HTTP API benchmark (issue 6): 'make bench-http' (also via 'make bench').
bench/http_bench: $(top_srcdir)/bench/http_bench.c libmicad.a
	@$(MKDIR_P) bench
	$(AM_V_CC)$(CC) $(DEFS) $(AM_CPPFLAGS) $(CPPFLAGS) $(MICAD_CFLAGS) -O2 -pthread -o $@ \
		$(top_srcdir)/bench/http_bench.c libmicad.a
bench-http: bench/http_bench tests/http_serve tests/http_fixture
	top_builddir=. top_srcdir=$(top_srcdir) $(SHELL) $(top_srcdir)/bench/http_bench.sh
bench: bench-http
.PHONY: bench-http
CLEANFILES += bench/http_bench
EXTRA_DIST += bench/http_bench.c bench/http_bench.sh
