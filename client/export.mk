## micactl export and query: the results database, read-only (issue 5).
micactl_SOURCES += client/results_db.h client/results_db.c client/export.c client/query.c
micactl_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
micactl_LDADD += $(MICACTL_SQLITE_LIBS)
