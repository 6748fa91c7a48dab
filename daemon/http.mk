## The HTTP server (issue 6): JSON API, /metrics, the web UI's files.
libmicad_a_SOURCES += \
	daemon/http.h daemon/http_int.h daemon/http.c daemon/http_json.c \
	daemon/http_api.c daemon/http_mgsim.c daemon/http_metrics.c daemon/http_static.c
libmicad_a_CFLAGS += $(MHD_CFLAGS) $(ZLIB_CFLAGS)

## The web UI: static files, installed beside the data.
webdir = $(pkgdatadir)/web
dist_web_DATA = web/index.html web/session.html web/micad.css web/common.js web/favicon.svg \
	web/index.js web/session.js web/charts.js
webvendordir = $(pkgdatadir)/web/vendor/uplot
dist_webvendor_DATA = web/vendor/uplot/uPlot.iife.min.js web/vendor/uplot/uPlot.min.css \
	web/vendor/uplot/LICENSE
EXTRA_DIST += web/README.md
