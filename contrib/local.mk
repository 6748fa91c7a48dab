## contrib: the bundled sample program (static, no sanitizers: it is a
## target to trace, not part of micad) and the scripts.
EXTRA_DIST += contrib/install-deps contrib/quickstart contrib/sample/sample.c

contrib/sample/sample: contrib/sample/sample.c
	@$(MKDIR_P) contrib/sample
	$(AM_V_CC)$(CC) -O1 -g -static -o $@ $(srcdir)/contrib/sample/sample.c

all-local: contrib/sample/sample
CLEANFILES += contrib/sample/sample
