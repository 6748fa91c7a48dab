## Reliability (issue 20): nothing collected is lost, bad input gets a clear
## error, every parser fuzzed.
TESTS += tests/reliability.sh tests/daemon_reliability.sh
EXTRA_DIST += tests/reliability.sh tests/daemon_reliability.sh
