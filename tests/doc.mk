## The manual pages (doc/) against what they describe: the options of
## every --help, the mica.conf keys micad knows, schema.sql's tables and
## views (each example query run), the HTTP server's endpoints, views and
## metrics; and mandoc/groff lint.
TESTS += tests/man_help.sh tests/man_lint.sh tests/man_sql.sh tests/man_http.sh
EXTRA_DIST += tests/man_help.sh tests/man_lint.sh tests/man_sql.sh tests/man_http.sh
