/*
 * MICA's configuration and output files on disk (mica_files.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mica_files.h"
#include "util.h"

char *
mica_read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0, cap = 4096;
	char *buf;

	if (fd < 0) {
		perror_msg("%s", path);
		return NULL;
	}
	buf = xmalloc(cap);
	for (;;) {
		ssize_t r;

		if (n + 1 >= cap)
			buf = xreallocarray(buf, cap *= 2, 1);
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			perror_msg("%s: read", path);
			free(buf);
			close(fd);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
}

int
mica_config_load(struct mica_config *cfg, const char *path)
{
	char err[512];
	size_t len;
	char *text = mica_read_file(path, &len);
	int r;

	if (!text)
		return -1;
	mica_config_init(cfg);
	r = mica_config_parse(cfg, path, text, len, err, sizeof(err));
	free(text);
	if (r < 0) {
		error_msg("%s", err);
		return -1;
	}
	if (cfg->itypes_spec_file && (cfg->analyses & MICA_BIT(MICA_ITYPES))) {
		const char *slash = strrchr(path, '/');
		char *spec_path = cfg->itypes_spec_file[0] == '/' || !slash
			? xstrdup(cfg->itypes_spec_file)
			: xasprintf("%.*s/%s", (int)(slash - path), path, cfg->itypes_spec_file);

		text = mica_read_file(spec_path, &len);
		if (!text) {
			error_msg("%s: cannot read itypes_spec_file '%s'", path, spec_path);
			free(spec_path);
			return -1;
		}
		cfg->itypes_spec = itypes_spec_parse(spec_path, text, len, err, sizeof(err));
		free(text);
		free(spec_path);
		if (!cfg->itypes_spec) {
			error_msg("%s", err);
			return -1;
		}
	}
	return 0;
}

static int
write_file(const char *dir, const char *name, const char *data, size_t len, int flags)
{
	char *path = xasprintf("%s/%s", dir, name);
	int fd = output_open(path, flags, "the MICA file");

	if (fd < 0) {
		free(path);
		return -1;
	}
	while (len) {
		ssize_t w = write(fd, data, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			perror_msg("%s: write", path);
			close(fd);
			free(path);
			return -1;
		}
		data += w;
		len -= (size_t)w;
	}
	if (close(fd) < 0) {
		perror_msg("%s: close", path);
		free(path);
		return -1;
	}
	free(path);
	return 0;
}

int
mica_files_begin(struct mica_output *o, const char *dir)
{
	for (size_t i = 0; i < o->n_files; i++) {
		struct mica_output_file *f = &o->files[i];

		if (!f->truncate_at_start)
			continue;
		if (write_file(dir, f->name, NULL, 0, O_TRUNC) < 0)
			return -1;
		f->truncate_at_start = false;	/* now append */
		f->opened = true;
	}
	return 0;
}

int
mica_files_flush(struct mica_output *o, const char *dir)
{
	int r = 0;

	for (size_t i = 0; i < o->n_files; i++) {
		struct mica_output_file *f = &o->files[i];

		if (!f->len && f->opened)
			continue;
		if (write_file(dir, f->name, f->data, f->len, f->opened ? O_APPEND : O_TRUNC) < 0)
			r = -1;
		f->opened = true;
	}
	mica_output_clear(o);
	return r;
}

void
mica_progress_write(const char *dir, uint64_t count)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "%" PRIu64 " instructions analyzed\n", count);

	/* Overwritten, as MICA's fopen("w"); a failure is reported there. */
	(void)write_file(dir, "mica_progress.txt", line, (size_t)n, O_TRUNC);
}
