## The scheduling analyzer (issue 7): LLVM's models as generated tables,
## the opcode mapping and the llvm-mca-style pipeline simulation.
libmica_a_SOURCES += \
	analyzers/sched/tables/sched_tables.h analyzers/sched/tables/sched_tables.c \
	analyzers/sched/sched_map.h analyzers/sched/sched_map.c \
	analyzers/sched/sched_print.h analyzers/sched/sched_print.c \
	analyzers/sched/sched_pipeline.h analyzers/sched/sched_pipeline.c \
	analyzers/sched/sched_uarch.h analyzers/sched/sched_uarch.c \
	analyzers/sched/sched_live.h analyzers/sched/sched_live.c
EXTRA_DIST += contrib/gen-sched-tables

## analyzers/sched/tables/ holds only generated code: sched_tables.c and
## sched_tables.h, written by contrib/gen-sched-tables from LLVM's
## scheduling dumps (never edit them by hand).  Rebuild them with
##   make regen-sched [LLVM_SCHED_DIR=DIR] [LLVM14_SCHED_DIR=DIR]
## (default ../shared/data/llvm-sched and ../shared/data/llvm14-sched beside
## the source tree); from unchanged dumps, git diff shows nothing after it.
LLVM_SCHED_DIR = $(abs_top_srcdir)/../shared/data/llvm-sched
LLVM14_SCHED_DIR = $(abs_top_srcdir)/../shared/data/llvm14-sched
regen-sched:
	python3 $(top_srcdir)/contrib/gen-sched-tables $(LLVM_SCHED_DIR) $(LLVM14_SCHED_DIR) \
		$(top_srcdir)/analyzers/sched/tables
.PHONY: regen-sched
