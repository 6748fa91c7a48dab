## contrib: the bundled sample program (static, no sanitizers: it is a
## target to trace, not part of micad) and the scripts.
EXTRA_DIST += contrib/install-deps contrib/quickstart contrib/sample/sample.c

## The sample configuration and itypes specification (mica.conf(5)),
## installed as examples beside the README.
examplesdir = $(docdir)/examples
dist_examples_DATA = contrib/sample/mica.conf contrib/sample/itypes.spec
dist_doc_DATA = README.md

## Bash completion for micad and micactl (configure:
## --with-bash-completion-dir); each reads the options from --help.
if INSTALL_BASH_COMPLETION
bashcompletiondir = $(BASH_COMPLETION_DIR)
dist_bashcompletion_DATA = contrib/completion/micad contrib/completion/micactl
else
EXTRA_DIST += contrib/completion/micad contrib/completion/micactl
endif

contrib/sample/sample: contrib/sample/sample.c
	@$(MKDIR_P) contrib/sample
	$(AM_V_CC)$(CC) -O1 -g -static -o $@ $(srcdir)/contrib/sample/sample.c

CLEANFILES += contrib/sample/sample

## systemd units (system and per-user), with the install paths filled in.
SYSTEMD_UNITS = contrib/systemd/micad.service contrib/systemd/micad.socket \
	contrib/systemd/user/micad.service contrib/systemd/user/micad.socket
EXTRA_DIST += $(SYSTEMD_UNITS:=.in)
CLEANFILES += $(SYSTEMD_UNITS)
$(SYSTEMD_UNITS): %: $(srcdir)/%.in Makefile
	@$(MKDIR_P) $(@D)
	$(AM_V_GEN)sed -e 's|@bindir[@]|$(bindir)|g' -e 's|@docdir[@]|$(docdir)|g' $(srcdir)/$@.in > $@
## The one all-local rule: what else is built by default (the valgrind
## tool, where configure found valgrind's files) is in $(MICAD_ALL_LOCAL).
all-local: contrib/sample/sample $(SYSTEMD_UNITS) $(MICAD_ALL_LOCAL)
systemdsystemunitdir = $(prefix)/lib/systemd/system
systemduserunitdir = $(prefix)/lib/systemd/user
install-data-local: $(SYSTEMD_UNITS)
	$(MKDIR_P) $(DESTDIR)$(systemdsystemunitdir) $(DESTDIR)$(systemduserunitdir)
	$(INSTALL_DATA) contrib/systemd/micad.service contrib/systemd/micad.socket $(DESTDIR)$(systemdsystemunitdir)/
	$(INSTALL_DATA) contrib/systemd/user/micad.service contrib/systemd/user/micad.socket $(DESTDIR)$(systemduserunitdir)/
uninstall-local:
	rm -f $(DESTDIR)$(systemdsystemunitdir)/micad.service $(DESTDIR)$(systemdsystemunitdir)/micad.socket
	rm -f $(DESTDIR)$(systemduserunitdir)/micad.service $(DESTDIR)$(systemduserunitdir)/micad.socket
