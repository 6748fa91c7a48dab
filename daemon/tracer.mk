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
	daemon/trace_cmd.c \
	daemon/sample_options.h daemon/sample_options.c \
	daemon/sample_event.h daemon/sample_event.c \
	daemon/perf_record.h daemon/perf_record.c \
	daemon/symbols.h daemon/symbols.c \
	daemon/unwind.h daemon/unwind.c \
	daemon/sampler.h daemon/sampler.c \
	daemon/sample_dump.h daemon/sample_dump.c \
	daemon/burst_budget.h daemon/burst_budget.c
## What the sampler needs at link time (libunwind, libpfm4, the C++
## demangler): every program that links the tracer.
SAMPLE_LIBS = $(UNWIND_LIBS) $(PFM_LIBS) $(DEMANGLE_LIBS)
