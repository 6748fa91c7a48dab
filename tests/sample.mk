## Tests of sample mode (issue 18): the perf record parser on constructed
## records.
check_PROGRAMS += tests/perf_record_test
tests_perf_record_test_SOURCES = tests/perf_record_test.c
tests_perf_record_test_LDADD = libmicad.a
TESTS += tests/perf_record_test
