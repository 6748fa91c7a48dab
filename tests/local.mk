## Tests: each test program prints TAP.  Test data and expected outputs
## live beside them in tests/.
EXTRA_DIST += tests/tap.h
include tests/decoder.mk
include tests/mica.mk
include tests/tracer.mk
include tests/sample.mk
include tests/vgengine.mk
include tests/store.mk
include tests/sched.mk
TESTS += tests/cli.sh
EXTRA_DIST += tests/cli.sh
include tests/daemon.mk
include tests/mgsim.mk
include tests/http.mk
include tests/export.mk
include tests/sched_daemon.mk
include tests/profile.mk
include tests/reliability.mk
include tests/doc.mk
include tests/install.mk
include tests/source_layout.mk

## make check-mutants: plausible one-line bugs (tests/mutants.list), each
## applied alone to a copy of the tree (tests/mutants/ of the build
## tree), rebuilt and tested; prints the share the tests catch and fails
## below 90%.  The checkout is never changed.  Long: run it niced.
PYTHON3 = python3
EXTRA_DIST += tests/mutants.py tests/mutants.list
check-mutants:
	$(PYTHON3) $(top_srcdir)/tests/mutants.py --srcdir $(top_srcdir) \
		--work $(abs_top_builddir)/tests/mutants \
		--configure-args="$$($(top_builddir)/config.status --config)" $(MUTANTS_ARGS)

## make check-under-load: the whole suite with two CPU-bound processes per
## core beside it (LOAD_PER_CPU to change), as a loaded CI machine runs it.
## Every wait in the tests is for a condition with a generous deadline, so
## the suite must pass this way too.
LOAD_PER_CPU = 2
check-under-load:
	@n=$$(( $$(nproc) * $(LOAD_PER_CPU) )); pids=; \
	for i in $$(seq $$n); do sh -c 'while :; do :; done' & pids="$$pids $$!"; done; \
	echo "check-under-load: $$n CPU-bound processes beside the suite"; \
	trap 'kill $$pids 2>/dev/null' EXIT INT TERM; \
	$(MAKE) $(AM_MAKEFLAGS) check; rc=$$?; kill $$pids; exit $$rc
clean-local: clean-mutants
clean-mutants:
	rm -rf tests/mutants
.PHONY: check-mutants check-under-load clean-mutants

## tests/mutants.list matches the code (make check-mutants itself is long).
TESTS += tests/mutants_list.sh
EXTRA_DIST += tests/mutants_list.sh
