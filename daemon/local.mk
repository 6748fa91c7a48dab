## micad: everything but main() goes into libmicad.a, which micactl and the
## tests link too.
noinst_LIBRARIES += libmicad.a
libmicad_a_SOURCES = \
	daemon/util.h daemon/util.c \
	daemon/store.h daemon/store.c
libmicad_a_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS) $(UNWIND_CFLAGS)
nodist_libmicad_a_SOURCES = daemon/schema_sql.c

## schema.sql is embedded into the binaries as a C string.
daemon/schema_sql.c: $(srcdir)/schema.sql
	@$(MKDIR_P) daemon
	$(AM_V_GEN){ printf '/* Generated from schema.sql by make: do not edit. */\nconst char micad_schema_sql[] =\n'; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $(srcdir)/schema.sql; \
	  printf ';\n'; } > $@-t && mv $@-t $@
CLEANFILES += daemon/schema_sql.c
libmicad_a_SOURCES += daemon/mica_files.h daemon/mica_files.c daemon/replay.c
include daemon/tracer.mk
include daemon/vgtool/local.mk
bin_PROGRAMS += micad
micad_SOURCES = daemon/micad.c daemon/commands.h
micad_LDADD = libmicad.a $(MICA_LIBS) $(SQLITE_LIBS) $(MHD_LIBS) $(ZLIB_LIBS) $(SAMPLE_LIBS) $(AX_PTHREAD_LIBS)
micad_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS) $(MHD_CFLAGS) $(UNWIND_CFLAGS)
include daemon/storage.mk
include daemon/serve.mk
include daemon/http.mk
include daemon/mgsim.mk
include daemon/sched_live.mk
include daemon/profile.mk
