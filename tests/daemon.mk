## The daemon and micactl's daemon commands (issue 5).
TESTS += tests/daemon.sh tests/daemon_users.sh tests/systemd_units.sh
EXTRA_DIST += tests/daemon.sh tests/daemon_users.sh tests/systemd_units.sh
