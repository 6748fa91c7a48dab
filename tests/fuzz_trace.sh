#!/bin/sh
# The libFuzzer target tests/fuzz_trace from its seeds (tests/fuzz_run.sh).
exec sh "${top_srcdir:-.}/tests/fuzz_run.sh" trace
