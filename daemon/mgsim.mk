## The MGSim counter view's daemon side (issue 6): the trace consumer, its
## live seqlock and the database rows.
libmicad_a_SOURCES += \
	daemon/trace_mgsim.h daemon/trace_mgsim.c \
	daemon/store_mgsim.h daemon/store_mgsim.c
