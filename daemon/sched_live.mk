## The live scheduling model's daemon side (issue 7, "Live, in the
## daemon"): the trace consumer and its database rows.
libmicad_a_SOURCES += \
	daemon/trace_sched.h daemon/trace_sched.c \
	daemon/store_sched.h daemon/store_sched.c
## GET /api/sessions/{id}/sched (dispatched from http_api.c).
libmicad_a_SOURCES += daemon/http_sched.h daemon/http_sched.c
