## MICA analyses (issue 4) are listed here.
libmica_a_SOURCES += \
	analyzers/mica/mica.h analyzers/mica/mica_config.h analyzers/mica/mica_config.c \
	analyzers/mica/sid_table.h analyzers/mica/sid_table.c \
	analyzers/mica/ilp.h analyzers/mica/ilp.c \
	analyzers/mica/itypes.c analyzers/mica/ppm.c analyzers/mica/reg.c \
	analyzers/mica/stride.c analyzers/mica/memfootprint.c \
	analyzers/mica/lru_stack.h analyzers/mica/lru_stack.c analyzers/mica/memstackdist.c \
	analyzers/mica/mica_run.h analyzers/mica/mica_run.c \
	analyzers/mica/ratio_estimate.h analyzers/mica/ratio_estimate.c \
	analyzers/mica/mica_sample.h analyzers/mica/mica_sample.c \
	analyzers/mica/mica_output.h analyzers/mica/mica_output.c \
	analyzers/mica/trace_text.h analyzers/mica/trace_text.c
