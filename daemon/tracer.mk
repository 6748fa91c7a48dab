## Tracer sources (issue 3) are listed here.
libmicad_a_SOURCES += \
	daemon/ring.h daemon/ring.c \
	daemon/tracer.h daemon/tracer.c \
	daemon/trace_child.h daemon/trace_child.c \
	daemon/trace_analysis.h daemon/trace_analysis.c \
	daemon/trace_mica.h daemon/trace_mica.c \
	daemon/trace_profile.h daemon/trace_profile.c \
	daemon/tracefile.h daemon/tracefile.c \
	daemon/trace_session.h daemon/trace_session.c \
	daemon/trace_http.h daemon/trace_http.c \
	daemon/trace_cmd.c
