## The results database end to end (issue 5): micad run/attach/replay
## writing it, micactl export and query reading it, its views, and kill -9.
STORE_SH_TESTS = tests/export_examples.sh tests/export_e2e.sh tests/store_views.sh \
	tests/store_crash.sh tests/query.sh
TESTS += $(STORE_SH_TESTS)
EXTRA_DIST += $(STORE_SH_TESTS)
EXTRA_DIST += tests/schema_v2.sql tests/schema_v3.sql
