## Reliability (issue 20): nothing collected is lost, bad input gets a clear
## error, every parser fuzzed.
TESTS += tests/reliability.sh tests/daemon_reliability.sh
EXTRA_DIST += tests/reliability.sh tests/daemon_reliability.sh

## libFuzzer targets (clang only, as tests/fuzz_decoder in tests/decoder.mk):
## the harness and the code under test are built by their own rule with
## $(FUZZ_CC) and the sanitizers; the rest of micad comes from libmicad.a
## and libmica.a as built.  tests/fuzz_run.sh runs each from its seed
## corpus tests/fuzz/NAME/ for $FUZZ_SECONDS (default 5), or skips when
## configure found no clang.
FUZZ_NAMES = trace config control http
TESTS += tests/fuzz_trace.sh tests/fuzz_config.sh tests/fuzz_control.sh tests/fuzz_http.sh
EXTRA_DIST += tests/fuzz_run.sh tests/fuzz_trace.sh tests/fuzz_config.sh \
	tests/fuzz_control.sh tests/fuzz_http.sh tests/fuzz_trace.c tests/fuzz_config.c \
	tests/fuzz_control.c tests/fuzz_http.c tests/fuzz
if HAVE_FUZZER
check_SCRIPTS += $(FUZZ_NAMES:%=tests/fuzz_%)
CLEANFILES += $(FUZZ_NAMES:%=tests/fuzz_%)
FUZZ_BUILD = $(FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -iquote $(top_builddir) -iquote $(srcdir) \
	-iquote $(srcdir)/analyzers -iquote $(srcdir)/daemon
FUZZ_LIBS = libmicad.a $(MICA_LIBS) $(SQLITE_LIBS) $(AX_PTHREAD_LIBS)
FUZZ_MICA_SRC = $(srcdir)/analyzers/mica/mica_config.c $(srcdir)/analyzers/mica/mica_run.c \
	$(srcdir)/analyzers/mica/ilp.c $(srcdir)/analyzers/mica/itypes.c \
	$(srcdir)/analyzers/mica/ppm.c $(srcdir)/analyzers/mica/reg.c \
	$(srcdir)/analyzers/mica/stride.c $(srcdir)/analyzers/mica/memfootprint.c \
	$(srcdir)/analyzers/mica/memstackdist.c $(srcdir)/analyzers/mica/lru_stack.c \
	$(srcdir)/analyzers/mica/sid_table.c $(srcdir)/analyzers/u64map.c
FUZZ_TRACE_SRC = $(srcdir)/tests/fuzz_trace.c $(srcdir)/daemon/store/tracefile.c \
	$(srcdir)/analyzers/mica/trace_text.c $(FUZZ_MICA_SRC)
FUZZ_CONFIG_SRC = $(srcdir)/tests/fuzz_config.c $(srcdir)/analyzers/mica/mica_config.c
FUZZ_CONTROL_SRC = $(srcdir)/tests/fuzz_control.c $(srcdir)/daemon/control.c
FUZZ_HTTP_SRC = $(srcdir)/tests/fuzz_http.c $(srcdir)/daemon/http/http.c \
	$(srcdir)/daemon/http/http_api.c $(srcdir)/daemon/http/http_json.c \
	$(srcdir)/daemon/http/http_metrics.c $(srcdir)/daemon/http/http_mgsim.c \
	$(srcdir)/daemon/http/http_pieces.c \
	$(srcdir)/daemon/http/http_profile.c $(srcdir)/daemon/http/http_sched.c \
	$(srcdir)/daemon/http/http_static.c
tests/fuzz_trace: $(FUZZ_TRACE_SRC) libmicad.a libmica.a config.h
	@$(MKDIR_P) tests
	$(AM_V_CC)$(FUZZ_BUILD) -o $@ $(FUZZ_TRACE_SRC) $(FUZZ_LIBS)
tests/fuzz_config: $(FUZZ_CONFIG_SRC) libmicad.a libmica.a config.h
	@$(MKDIR_P) tests
	$(AM_V_CC)$(FUZZ_BUILD) -o $@ $(FUZZ_CONFIG_SRC) $(FUZZ_LIBS)
tests/fuzz_control: $(FUZZ_CONTROL_SRC) libmicad.a libmica.a config.h
	@$(MKDIR_P) tests
	$(AM_V_CC)$(FUZZ_BUILD) -o $@ $(FUZZ_CONTROL_SRC) $(FUZZ_LIBS)
tests/fuzz_http: $(FUZZ_HTTP_SRC) libmicad.a libmica.a config.h
	@$(MKDIR_P) tests
	$(AM_V_CC)$(FUZZ_BUILD) $(MHD_CFLAGS) $(SQLITE_CFLAGS) \
		-DMICAD_WEB_DIR='"$(pkgdatadir)/web"' -DMICAD_SRC_WEB_DIR='"$(abs_top_srcdir)/web"' \
		-o $@ $(FUZZ_HTTP_SRC) \
		$(FUZZ_LIBS) $(MHD_LIBS) $(ZLIB_LIBS)
endif
