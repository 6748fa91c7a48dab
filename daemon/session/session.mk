## A tracing session (issues 3 to 7, 18): its analysis thread drains the
## producers' ring (trace_analysis.c) and hands each record to the
## consumers: the MICA analyses (trace_mica.c, their groups on threads of
## their own through event_fanout.c), the live scheduling model
## (trace_sched.c), the MGSim counters and their live seqlock
## (trace_mgsim.c), sample mode's call-stack profile (trace_profile.c) and
## its text dump (sample_dump.c); trace_session.c wires one session
## together, for 'micad run/attach' and for a worker of 'micad serve'.
libmicad_a_SOURCES += \
	daemon/session/trace_analysis.h daemon/session/trace_analysis.c \
	daemon/session/trace_mica.h daemon/session/trace_mica.c \
	daemon/session/event_fanout.h daemon/session/event_fanout.c \
	daemon/session/trace_sched.h daemon/session/trace_sched.c \
	daemon/session/trace_mgsim.h daemon/session/trace_mgsim.c \
	daemon/session/trace_profile.h daemon/session/trace_profile.c \
	daemon/session/sample_dump.h daemon/session/sample_dump.c \
	daemon/session/trace_session.h daemon/session/trace_session.c
