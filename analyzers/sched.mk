## The scheduling analyzer (issue 7): LLVM's models as generated tables,
## the opcode mapping and the llvm-mca-style pipeline simulation.
libmica_a_SOURCES += \
	analyzers/sched_tables.h analyzers/sched_tables.c \
	analyzers/sched_map.h analyzers/sched_map.c \
	analyzers/sched_print.h analyzers/sched_print.c \
	analyzers/sched_pipeline.h analyzers/sched_pipeline.c \
	analyzers/sched_uarch.h analyzers/sched_uarch.c \
	analyzers/sched_live.h analyzers/sched_live.c
EXTRA_DIST += contrib/gen-sched-tables

## Rebuild the tables from LLVM's dumps:
##   make regen-sched [LLVM_SCHED_DIR=DIR] [LLVM14_SCHED_DIR=DIR]
##   (default ../shared/data/llvm-sched and ../shared/data/llvm14-sched)
LLVM_SCHED_DIR = $(abs_top_srcdir)/../shared/data/llvm-sched
LLVM14_SCHED_DIR = $(abs_top_srcdir)/../shared/data/llvm14-sched
regen-sched:
	python3 $(top_srcdir)/contrib/gen-sched-tables $(LLVM_SCHED_DIR) $(LLVM14_SCHED_DIR) \
		$(top_srcdir)/analyzers
.PHONY: regen-sched
