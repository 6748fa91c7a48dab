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
