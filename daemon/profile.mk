## Sample mode's profile read back from the database (issue 18, "The
## profile"): shared by micactl's folded and pprof exports and by
## GET /api/sessions/{id}/profile... (dispatched from http_api.c).
libmicad_a_SOURCES += daemon/profile_read.h daemon/profile_read.c \
	daemon/http_profile.h daemon/http_profile.c
