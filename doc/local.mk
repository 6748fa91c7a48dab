## Manual pages, written for micad in roff (man(7) macros): 'man
## ./doc/micad.8' reads one from the tree, 'make install' puts each under
## $(mandir) by its section.  tests/man_*.sh check them against the
## programs' --help, schema.sql, the HTTP server and the linters.
dist_man_MANS = doc/micad.8 doc/micactl.1 doc/micactl-mca.1 doc/mica.conf.5 \
	doc/micad-http.7 doc/micad-sql.7

## The developers' document (how each part works and is checked) and the
## README's screenshot.
EXTRA_DIST += doc/internals.md doc/screenshot.png
