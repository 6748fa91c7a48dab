/*
 * The web UI's static files, only from the configured web root: the
 * request path was already split into checked segments (no "." or "..",
 * no encoded '/'); the file is opened without following a final symlink,
 * its real path must still lie under the root, and only regular files
 * are served.  Each answer has an ETag and a Last-Modified from the file
 * (a revalidation costs a stat and a 304), and text files go gzipped to a
 * client that takes it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "http/http_int.h"

static const struct {
	const char *ext, *type;
} types[] = {
	{ ".html", "text/html; charset=utf-8" },
	{ ".js", "text/javascript; charset=utf-8" },
	{ ".css", "text/css; charset=utf-8" },
	{ ".svg", "image/svg+xml" },
	{ ".png", "image/png" },
	{ ".ico", "image/x-icon" },
	{ ".json", "application/json" },
	{ ".txt", "text/plain; charset=utf-8" },
	{ "LICENSE", "text/plain; charset=utf-8" },
	{ ".md", "text/plain; charset=utf-8" },
};

static const char *
content_type(const char *path)
{
	size_t n = strlen(path);

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		size_t e = strlen(types[i].ext);

		if (n >= e && !strcmp(path + n - e, types[i].ext))
			return types[i].type;
	}
	return "application/octet-stream";
}

int
http_static(struct http_req *r, enum MHD_Result *ret)
{
	const char *root = r->srv->web_root;
	struct MHD_Response *resp;
	struct stat st;
	char *full, *real;
	size_t rootlen;
	int fd;

	if (!root) {
		http_error(r, 404, "this server has no web UI (no web root configured)");
		return -1;
	}
	full = xasprintf("%s%s", root, r->nseg ? r->path : "/index.html");
	fd = open(full, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		free(full);
		if (e == ENOENT || e == ENOTDIR || e == ELOOP)
			http_error(r, 404, "no such page");
		else
			http_error(r, 403, "cannot open that file: %s", strerror(e));
		return -1;
	}
	real = realpath(full, NULL);
	free(full);
	rootlen = strlen(root);
	if (!real || strncmp(real, root, rootlen) || real[rootlen] != '/' ||
	    fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		free(real);
		close(fd);
		http_error(r, 404, "no such page");
		return -1;
	}
	r->content_type = content_type(real);
	free(real);
	{
		char etag[96], lm[64];
		const char *ims = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
							      MHD_HTTP_HEADER_IF_MODIFIED_SINCE);
		struct tm tm;
		bool fresh;

		snprintf(etag, sizeof(etag), "W/\"%llx-%llx-%llx\"", (unsigned long long)st.st_size,
			 (unsigned long long)st.st_mtim.tv_sec * 1000000000ull +
			 (unsigned long long)st.st_mtim.tv_nsec, (unsigned long long)st.st_ino);
		gmtime_r(&st.st_mtim.tv_sec, &tm);
		strftime(lm, sizeof(lm), "%a, %d %b %Y %H:%M:%S GMT", &tm);
		http_add_header(r, MHD_HTTP_HEADER_ETAG, etag);
		http_add_header(r, MHD_HTTP_HEADER_LAST_MODIFIED, lm);
		/* If-None-Match decides when present; else If-Modified-Since,
		 * to the second. */
		if (MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_NONE_MATCH))
			fresh = http_not_modified(r, etag);
		else
			fresh = ims && !strcmp(ims, lm);
		if (fresh) {
			close(fd);
			r->status = 304;
			*ret = http_send_buffer(r, xstrdup(""), 0, false);
			return 0;
		}
	}
	/* Text is read whole and maybe gzipped (the UI's files are small);
	 * anything else is sent from the file. */
	if (strncmp(r->content_type, "image/png", 9) && strncmp(r->content_type, "image/x-icon", 12) &&
	    strcmp(r->content_type, "application/octet-stream") && st.st_size < (8 << 20)) {
		size_t len = (size_t)st.st_size, got = 0;
		char *buf = xmalloc(len + 1);

		while (got < len) {
			ssize_t n = read(fd, buf + got, len - got);

			if (n <= 0)
				break;
			got += (size_t)n;
		}
		close(fd);
		*ret = http_send_buffer(r, buf, got, false);
		return 0;
	}
	resp = MHD_create_response_from_fd64((uint64_t)st.st_size, fd);
	if (!resp) {
		close(fd);
		http_error(r, 500, "cannot create the response for a static file");
		return -1;
	}
	*ret = http_queue(r, resp, false);
	return 0;
}
