## micactl's daemon commands (issue 5).
micactl_SOURCES += client/ctl.c
