/*
 * The live scheduling model in the JSON API (http_sched.c):
 *   GET /api/sessions/{id}/sched?tid=T&from=A&to=B&limit=N&offset=K
 * the simulated cycles, IPC, CPI and per-port uops and pressure of each
 * interval (paginated like /intervals), the model's CPU, and the
 * session's hottest blocks with their static-style reports.
 */
#ifndef MICAD_HTTP_SCHED_H
#define MICAD_HTTP_SCHED_H

#include <stdint.h>

#include "http/http_int.h"

int http_api_sched(struct http_req *r, int64_t session);

#endif /* MICAD_HTTP_SCHED_H */
