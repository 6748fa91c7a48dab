## Benchmarks: built by 'make bench', never part of 'make check'.
include bench/tracer.mk
