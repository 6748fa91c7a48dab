## MICA analyses (issue 4) are listed here.
libmica_a_SOURCES += \
	analyzers/mica.h analyzers/mica_config.h analyzers/mica_config.c \
	analyzers/u64map.h analyzers/u64map.c \
	analyzers/ilp.h analyzers/ilp.c \
	analyzers/itypes.c analyzers/ppm.c analyzers/reg.c analyzers/stride.c \
	analyzers/memfootprint.c \
	analyzers/lru_stack.h analyzers/lru_stack.c analyzers/memstackdist.c \
	analyzers/mica_run.h analyzers/mica_run.c \
	analyzers/ratio_estimate.h analyzers/ratio_estimate.c \
	analyzers/mica_sample.h analyzers/mica_sample.c \
	analyzers/mica_output.h analyzers/mica_output.c \
	analyzers/trace_text.h analyzers/trace_text.c
