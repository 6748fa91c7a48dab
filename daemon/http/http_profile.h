/*
 * Sample mode's profile in the JSON API (http_profile.c):
 *   GET /api/sessions/{id}/profile            the flame graph's tree
 *   GET /api/sessions/{id}/profile/functions  the hot-function table
 *   GET /api/sessions/{id}/profile/rate       samples per interval per thread
 * each filtered by tid, from/to (interval indexes) and since/until (Unix
 * seconds).  Dispatched from http_api.c; seg is the index of "profile"
 * in the path.
 */
#ifndef MICAD_HTTP_PROFILE_H
#define MICAD_HTTP_PROFILE_H

#include <stdint.h>

#include "http/http_int.h"

int http_api_profile(struct http_req *r, int64_t session, int seg);

#endif /* MICAD_HTTP_PROFILE_H */
