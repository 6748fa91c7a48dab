## The pure analysis library: no I/O, no ptrace, no SQLite.  Here, the
## event contract (event.h), the decoder and the hash map the analyzers
## share; in the folders below, one analyzer each: mica/ (MICA's metrics),
## sched/ (llvm-mca's scheduling model and its generated tables), mgsim/
## (MGSim's counters).  Each includes from this folder and its own only:
## never from another analyzer, nor from daemon/ or client/
## (tests/source_layout.sh).
noinst_LIBRARIES += libmica.a
libmica_a_SOURCES = \
	analyzers/event.h \
	analyzers/decoder.h analyzers/decoder.c analyzers/insn_zydis.h \
	analyzers/iclass.h analyzers/iclass.c \
	analyzers/decode_cache.h analyzers/decode_cache.c \
	analyzers/u64map.h analyzers/u64map.c
libmica_a_CFLAGS = $(AM_CFLAGS)
include analyzers/mica/mica.mk
MICA_LIBS = libmica.a $(ZYDIS_LIBS) -lm
include analyzers/sched/sched.mk
include analyzers/mgsim/mgsim.mk
