## Decoder tests.
check_PROGRAMS += tests/decoder_table
tests_decoder_table_SOURCES = tests/decoder_table.c tests/decoder_rows.h tests/tap.h
tests_decoder_table_LDADD = $(MICA_LIBS)
TESTS += tests/decoder_table
