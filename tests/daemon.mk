## The daemon and micactl's daemon commands (issue 5).
TESTS += tests/daemon.sh tests/daemon_users.sh tests/systemd_units.sh
EXTRA_DIST += tests/daemon.sh tests/daemon_users.sh tests/systemd_units.sh

## Files and terminal output (issue 17): what a traced program's strings
## look like on a terminal.
check_PROGRAMS += tests/term_escape_test
tests_term_escape_test_SOURCES = tests/term_escape_test.c tests/tap.h
tests_term_escape_test_LDADD = libmicad.a
TESTS += tests/term_escape_test
## Output files never written through a link, databases 0600, command
## lines escaped in micactl's output and the daemon's log.
TESTS += tests/output_files.sh
EXTRA_DIST += tests/output_files.sh
