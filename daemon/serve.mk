## The daemon: control socket, session workers, access rules (issue 5).
libmicad_a_SOURCES += \
	daemon/control.h daemon/control.c \
	daemon/serve.h daemon/serve.c daemon/serve_worker.c daemon/serve_access.c
## Where the web UI's files are: installed, else (a build tree) the sources.
libmicad_a_CFLAGS += -DMICAD_WEB_DIR='"$(pkgdatadir)/web"' \
	-DMICAD_SRC_WEB_DIR='"$(abs_top_srcdir)/web"'
