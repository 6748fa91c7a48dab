## What micad keeps: the results database (store.c; schema.sql), its
## writer thread, the rows of each consumer (MICA's intervals, the MGSim
## counters, the scheduling model, sample mode's profile), JSON text for
## the settings column and micactl's outputs, the profile read back for
## the exports and the HTTP API; and the binary trace file of
## 'micad run --record', read by 'micad replay'.
libmicad_a_SOURCES += \
	daemon/store/store.h daemon/store/store.c \
	daemon/store/store_writer.h daemon/store/store_writer.c \
	daemon/store/store_json.h daemon/store/store_json.c \
	daemon/store/store_mgsim.h daemon/store/store_mgsim.c \
	daemon/store/store_sched.h daemon/store/store_sched.c \
	daemon/store/store_profile.h daemon/store/store_profile.c \
	daemon/store/profile_read.h daemon/store/profile_read.c \
	daemon/store/tracefile.h daemon/store/tracefile.c
nodist_libmicad_a_SOURCES = daemon/store/schema_sql.c

## schema.sql is embedded into the binaries as a C string.
daemon/store/schema_sql.c: $(srcdir)/schema.sql
	@$(MKDIR_P) daemon/store
	$(AM_V_GEN){ printf '/* Generated from schema.sql by make: do not edit. */\nconst char micad_schema_sql[] =\n'; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $(srcdir)/schema.sql; \
	  printf ';\n'; } > $@-t && mv $@-t $@
CLEANFILES += daemon/store/schema_sql.c
