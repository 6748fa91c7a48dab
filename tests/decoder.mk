## Decoder tests.
check_PROGRAMS += tests/decoder_table tests/decode_cache_test tests/fuzz_decoder_smoke
tests_decoder_table_SOURCES = tests/decoder_table.c tests/decoder_rows.h tests/tap.h
tests_decoder_table_LDADD = $(MICA_LIBS)
tests_decode_cache_test_SOURCES = tests/decode_cache_test.c tests/tap.h
tests_decode_cache_test_LDADD = $(MICA_LIBS)
## The fuzz harness without libFuzzer: a fixed pseudo-random run, any compiler.
tests_fuzz_decoder_smoke_SOURCES = tests/fuzz_decoder.c
tests_fuzz_decoder_smoke_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_STANDALONE
tests_fuzz_decoder_smoke_LDADD = $(MICA_LIBS)
TESTS += tests/decoder_table tests/decode_cache_test tests/fuzz_decoder_smoke \
	tests/fuzz_decoder.sh
EXTRA_DIST += tests/fuzz_decoder.sh

## libFuzzer target (clang only): built by its own rule with $(FUZZ_CC), not
## with $(CC)/$(CFLAGS), so a gcc or sanitizer build never sees
## -fsanitize=fuzzer.  tests/fuzz_decoder.sh runs it for a bounded time, or
## skips (saying why) when configure found no clang.
AM_TESTS_ENVIRONMENT += FUZZ_CC='$(FUZZ_CC)'; export FUZZ_CC;
if HAVE_FUZZER
check_SCRIPTS += tests/fuzz_decoder
CLEANFILES += tests/fuzz_decoder
FUZZ_DECODER_SRC = $(srcdir)/tests/fuzz_decoder.c $(srcdir)/analyzers/decoder.c \
	$(srcdir)/analyzers/iclass.c
tests/fuzz_decoder: $(FUZZ_DECODER_SRC) $(srcdir)/analyzers/decoder.h \
		$(srcdir)/analyzers/event.h $(srcdir)/analyzers/iclass.h config.h
	@$(MKDIR_P) tests
	$(AM_V_CC)$(FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined \
		-iquote $(top_builddir) -iquote $(srcdir)/analyzers -o $@ $(FUZZ_DECODER_SRC) \
		-lZydis -lpthread
endif
