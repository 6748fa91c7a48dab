## Sample mode's profile read back from the database (issue 18, "The
## profile"): shared by micactl's folded and pprof exports.
libmicad_a_SOURCES += daemon/profile_read.h daemon/profile_read.c
