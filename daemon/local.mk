## micad: everything but main() goes into libmicad.a, which micactl and the
## tests link too.
noinst_LIBRARIES += libmicad.a
libmicad_a_SOURCES = \
	daemon/util.h daemon/util.c
libmicad_a_SOURCES += daemon/mica_files.h daemon/mica_files.c daemon/replay.c
include daemon/tracer.mk
bin_PROGRAMS += micad
micad_SOURCES = daemon/micad.c
micad_LDADD = libmicad.a $(MICA_LIBS) $(SQLITE_LIBS) $(MHD_LIBS) $(UNWIND_LIBS) $(PFM_LIBS) $(AX_PTHREAD_LIBS)
micad_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS) $(MHD_CFLAGS) $(UNWIND_CFLAGS)
