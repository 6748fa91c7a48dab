## The daemon and micactl's daemon commands (issue 5), and its security
## (issue 17): probes by unprivileged users against a root micad.
TESTS += tests/daemon.sh tests/daemon_users.sh tests/systemd_units.sh tests/daemon_security.sh
EXTRA_DIST += tests/daemon.sh tests/daemon_users.sh tests/systemd_units.sh \
	tests/daemon_security.sh tests/ctl_client.py

## The security probe target: an ordinary dynamic C program (no sanitizer
## flags: it runs setuid root in a test).
SEC_PROBE = tests/cprog/sec_probe
check_SCRIPTS += $(SEC_PROBE)
CLEANFILES += $(SEC_PROBE)
EXTRA_DIST += $(SEC_PROBE:=.c)

$(SEC_PROBE): %: $(top_srcdir)/%.c
	@$(MKDIR_P) tests/cprog
	$(AM_V_CC)$(CC) -O1 -o $@ $(top_srcdir)/$@.c

## Files and terminal output (issue 17): what a traced program's strings
## look like on a terminal.
check_PROGRAMS += tests/term_escape_test
tests_term_escape_test_SOURCES = tests/term_escape_test.c tests/tap.h
tests_term_escape_test_LDADD = libmicad.a
TESTS += tests/term_escape_test
## /metrics of a running daemon session and the scrape credential's file
## (issue 22).
TESTS += tests/metrics_daemon.sh
EXTRA_DIST += tests/metrics_daemon.sh
## Output files never written through a link, databases 0600, command
## lines escaped in micactl's output and the daemon's log.
TESTS += tests/output_files.sh
EXTRA_DIST += tests/output_files.sh
