/*
 * The HTTP server beside a foreground 'micad run' or 'micad attach'
 * session (--http): the same API and web UI as micad serve's.
 */
#ifndef MICAD_TRACE_HTTP_H
#define MICAD_TRACE_HTTP_H

#include "session/trace_session.h"

struct trace_http;

/* Start serving on listen ("ADDR:PORT"; NULL or "": the default
 * loopback addresses) and hook the session's options so the live view
 * follows it.  NULL after reporting why. */
struct trace_http *trace_http_start(struct trace_session_opts *o, const char *listen);
/* After the session: stop serving. */
void trace_http_stop(struct trace_http *th);

#endif /* MICAD_TRACE_HTTP_H */
