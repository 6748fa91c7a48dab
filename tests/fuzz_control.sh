#!/bin/sh
# The libFuzzer target tests/fuzz_control from its seeds (tests/fuzz_run.sh).
exec sh "${top_srcdir:-.}/tests/fuzz_run.sh" control
