## The pure analysis library: no I/O, no ptrace, no SQLite.
noinst_LIBRARIES += libmica.a
libmica_a_SOURCES = \
	analyzers/event.h \
	analyzers/decoder.h analyzers/decoder.c analyzers/insn_zydis.h \
	analyzers/iclass.h analyzers/iclass.c \
	analyzers/decode_cache.h analyzers/decode_cache.c
libmica_a_CFLAGS = $(AM_CFLAGS)
include analyzers/mica.mk
MICA_LIBS = libmica.a $(ZYDIS_LIBS) -lm
include analyzers/sched.mk
include analyzers/mgsim.mk
