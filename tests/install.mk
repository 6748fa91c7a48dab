## make install into a DESTDIR, uninstall, and the installed micad run
## where it was configured to live (tests/install.sh), which is told the
## directories make installs into.
TESTS += tests/install.sh
EXTRA_DIST += tests/install.sh
AM_TESTS_ENVIRONMENT += MAKE='$(MAKE)' inst_prefix='$(prefix)' inst_bindir='$(bindir)' \
	inst_mandir='$(mandir)' inst_pkgdatadir='$(pkgdatadir)' \
	inst_pkglibexecdir='$(pkglibexecdir)' inst_docdir='$(docdir)' \
	inst_bashcompletiondir='$(BASH_COMPLETION_DIR)' \
	inst_systemdsystemunitdir='$(systemdsystemunitdir)' \
	inst_systemduserunitdir='$(systemduserunitdir)'; \
	export MAKE inst_prefix inst_bindir inst_mandir inst_pkgdatadir inst_pkglibexecdir \
	inst_docdir inst_bashcompletiondir inst_systemdsystemunitdir inst_systemduserunitdir;
## The bash completions that 'make install' installs, sourced into bash.
TESTS += tests/completion.sh
EXTRA_DIST += tests/completion.sh
