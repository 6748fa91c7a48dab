## Sample mode's profile read back from the database (issue 18, "The
## profile"): shared by micactl's folded and pprof exports and by
## GET /api/sessions/{id}/profile... (dispatched from http_api.c).
libmicad_a_SOURCES += daemon/profile_read.h daemon/profile_read.c \
	daemon/http_profile.h daemon/http_profile.c

## The web UI's profile view: the flame graph (d3-flame-graph, vendored
## with its licences), the sample rate and the hot-function table.
dist_web_DATA += web/profile.js
webflamedir = $(pkgdatadir)/web/vendor/d3-flame-graph
dist_webflame_DATA = web/vendor/d3-flame-graph/d3-flamegraph.min.js \
	web/vendor/d3-flame-graph/d3-flamegraph.css web/vendor/d3-flame-graph/LICENSE \
	web/vendor/d3-flame-graph/LICENSE.d3
