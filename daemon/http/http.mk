## The HTTP server (issue 6): JSON API, /metrics, the web UI's files, and
## the views of the MGSim counters, the scheduling model and sample mode's
## profile (GET /api/sessions/{id}/mgsim, .../sched, .../profile...,
## dispatched from http_api.c); trace_http.c runs it beside a foreground
## 'micad run --http' or 'micad attach --http'.
libmicad_a_SOURCES += \
	daemon/http/http.h daemon/http/http_int.h daemon/http/http.c \
	daemon/http/http_json.c daemon/http/http_api.c daemon/http/http_mgsim.c \
	daemon/http/http_metrics.c daemon/http/http_pieces.c daemon/http/http_static.c \
	daemon/http/http_sched.h daemon/http/http_sched.c \
	daemon/http/http_profile.h daemon/http/http_profile.c \
	daemon/http/trace_http.h daemon/http/trace_http.c
libmicad_a_CFLAGS += $(MHD_CFLAGS) $(ZLIB_CFLAGS)
## Where the web UI's files are: installed, else (a build tree) the sources.
libmicad_a_CFLAGS += -DMICAD_WEB_DIR='"$(pkgdatadir)/web"' \
	-DMICAD_SRC_WEB_DIR='"$(abs_top_srcdir)/web"'

## The web UI: static files, installed beside the data.
webdir = $(pkgdatadir)/web
dist_web_DATA = web/index.html web/session.html web/micad.css web/common.js web/favicon.svg \
	web/index.js web/session.js web/charts.js
webvendordir = $(pkgdatadir)/web/vendor/uplot
dist_webvendor_DATA = web/vendor/uplot/uPlot.iife.min.js web/vendor/uplot/uPlot.min.css \
	web/vendor/uplot/LICENSE
EXTRA_DIST += web/README.md
## The web UI's profile view: the flame graph (d3-flame-graph, vendored
## with its licences), the sample rate and the hot-function table.
dist_web_DATA += web/profile.js
webflamedir = $(pkgdatadir)/web/vendor/d3-flame-graph
dist_webflame_DATA = web/vendor/d3-flame-graph/d3-flamegraph.min.js \
	web/vendor/d3-flame-graph/d3-flamegraph.css web/vendor/d3-flame-graph/LICENSE \
	web/vendor/d3-flame-graph/LICENSE.d3
