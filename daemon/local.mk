## micad: everything but main() goes into libmicad.a, which micactl and the
## tests link too.  Its folders follow the data flow: trace/ produces the
## events (ptrace, the sampler, the valgrind engine), session/ drains them
## into the analyzers (analyzers/) and the other consumers, store/ keeps
## the results (the SQLite database, the recorded trace file), http/ shows
## them; the producers include nothing of the other three
## (tests/source_layout.sh).  Here: main(), the commands, MICA's files,
## the control socket and 'micad serve'.
noinst_LIBRARIES += libmicad.a
libmicad_a_SOURCES = daemon/util.h daemon/util.c
libmicad_a_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS) $(UNWIND_CFLAGS)
## MICA's configuration and output files, and the commands but serve:
## 'micad run' and 'micad attach' (trace_cmd.c), 'micad replay'.
libmicad_a_SOURCES += daemon/mica_files.h daemon/mica_files.c \
	daemon/trace_cmd.c daemon/replay.c
## The daemon: control socket, session workers, access rules (issue 5).
libmicad_a_SOURCES += \
	daemon/control.h daemon/control.c \
	daemon/serve.h daemon/serve.c daemon/serve_worker.c daemon/serve_access.c
include daemon/trace/tracer.mk
include daemon/session/session.mk
include daemon/store/storage.mk
include daemon/http/http.mk
bin_PROGRAMS += micad
micad_SOURCES = daemon/micad.c daemon/commands.h
micad_LDADD = libmicad.a $(MICA_LIBS) $(SQLITE_LIBS) $(MHD_LIBS) $(ZLIB_LIBS) $(SAMPLE_LIBS) $(AX_PTHREAD_LIBS)
micad_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS) $(MHD_CFLAGS) $(UNWIND_CFLAGS)
