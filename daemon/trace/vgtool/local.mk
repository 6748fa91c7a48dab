## The valgrind engine's tool (issue 19).  It runs inside valgrind, so it
## is built with valgrind's flags, not micad's (no sanitizers, no libc),
## linked statically with valgrind's core, and kept in a directory of its
## own next to links to valgrind's preload library and suppressions:
## valgrind finds all three through VALGRIND_LIB (vg_engine.c).
EXTRA_DIST += daemon/trace/vgtool/micadvg.c daemon/trace/vgtool/vg_proto.h
if HAVE_VGTOOL
VGTOOL_DIR = daemon/trace/vgtool
VGTOOL = $(VGTOOL_DIR)/micadvg-amd64-linux
VGTOOL_LINKS = vgpreload_core-amd64-linux.so default.supp
VGTOOL_CFLAGS = -std=gnu11 -O2 -g -m64 -fno-pie -fno-strict-aliasing -fno-builtin \
	-fno-stack-protector -fomit-frame-pointer \
	-DVGA_amd64=1 -DVGO_linux=1 -DVGP_amd64_linux=1 -DVGPV_amd64_linux_vanilla=1 \
	-isystem $(VALGRIND_INCLUDEDIR) -Wall -Wextra -Wshadow -Wmissing-prototypes \
	-Wstrict-prototypes $(filter -Werror,$(MICAD_CFLAGS))
$(VGTOOL_DIR)/micadvg.o: $(srcdir)/daemon/trace/vgtool/micadvg.c \
		$(srcdir)/daemon/trace/vgtool/vg_proto.h
	@$(MKDIR_P) $(VGTOOL_DIR)
	$(AM_V_CC)$(CC) $(VGTOOL_CFLAGS) -c -o $@ $(srcdir)/daemon/trace/vgtool/micadvg.c
$(VGTOOL): $(VGTOOL_DIR)/micadvg.o
	$(AM_V_CCLD)$(CC) -o $@ $(VGTOOL_DIR)/micadvg.o -static -nodefaultlibs -nostartfiles \
	  -u _start -Wl,-Ttext-segment=$(VALGRIND_LOAD_ADDRESS) -no-pie -L$(VALGRIND_LIBDIR) \
	  -lcoregrind-amd64-linux -lvex-amd64-linux -lgcc-sup-amd64-linux -lgcc
	$(AM_V_at)for f in $(VGTOOL_LINKS); do ln -sf $(VALGRIND_LIBEXECDIR)/$$f $(VGTOOL_DIR)/$$f; done
MICAD_ALL_LOCAL += $(VGTOOL)
CLEANFILES += $(VGTOOL) $(VGTOOL_DIR)/micadvg.o $(VGTOOL_LINKS:%=$(VGTOOL_DIR)/%)
vgtooldir = $(pkglibexecdir)/valgrind
install-exec-hook: $(VGTOOL)
	$(MKDIR_P) $(DESTDIR)$(vgtooldir)
	$(INSTALL_PROGRAM) $(VGTOOL) $(DESTDIR)$(vgtooldir)/
	for f in $(VGTOOL_LINKS); do ln -sf $(VALGRIND_LIBEXECDIR)/$$f $(DESTDIR)$(vgtooldir)/$$f; done
uninstall-hook:
	rm -f $(DESTDIR)$(vgtooldir)/micadvg-amd64-linux $(VGTOOL_LINKS:%=$(DESTDIR)$(vgtooldir)/%)
endif
## Where micad looks for the tool: installed, else this build tree.
libmicad_a_CFLAGS += -DMICAD_VGTOOL_DIR='"$(pkglibexecdir)/valgrind"' \
	-DMICAD_BUILD_VGTOOL_DIR='"$(abs_top_builddir)/daemon/trace/vgtool"'
## micad's side of the engine: launches valgrind with the tool and turns
## its records into instruction events.
libmicad_a_SOURCES += daemon/trace/vg_engine.h daemon/trace/vg_engine.c
