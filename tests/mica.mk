## Tests for issue mica (the MICA analyses) are listed here.
check_PROGRAMS += tests/mica_lru_stack tests/mica_unit
tests_mica_lru_stack_SOURCES = tests/mica_lru_stack.c
tests_mica_lru_stack_LDADD = $(MICA_LIBS)
tests_mica_unit_SOURCES = tests/mica_unit.c
tests_mica_unit_LDADD = $(MICA_LIBS)
TESTS += tests/mica_lru_stack tests/mica_unit tests/mica_examples.sh
EXTRA_DIST += tests/mica_examples.sh tests/mica
