## The producers of events (issues 3, 18, 19): the ptrace tracer and the
## traced child, sample mode's sampler (perf events, unwinding, symbols,
## burst placement), the valgrind engine and its tool (vgtool/), and the
## ring that carries their records to the session's analysis thread.
libmicad_a_SOURCES += \
	daemon/trace/ring.h daemon/trace/ring.c \
	daemon/trace/tracer.h daemon/trace/tracer.c \
	daemon/trace/trace_child.h daemon/trace/trace_child.c \
	daemon/trace/sample_options.h daemon/trace/sample_options.c \
	daemon/trace/sample_event.h daemon/trace/sample_event.c \
	daemon/trace/perf_record.h daemon/trace/perf_record.c \
	daemon/trace/symbols.h daemon/trace/symbols.c \
	daemon/trace/unwind.h daemon/trace/unwind.c \
	daemon/trace/sampler.h daemon/trace/sampler.c \
	daemon/trace/burst_budget.h daemon/trace/burst_budget.c
## What the sampler needs at link time (libunwind, libpfm4, the C++
## demangler): every program that links the tracer.
SAMPLE_LIBS = $(UNWIND_LIBS) $(PFM_LIBS) $(DEMANGLE_LIBS)
include daemon/trace/vgtool/local.mk
