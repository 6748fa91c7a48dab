/*
 * MICA's configuration and output files on disk (mica_files.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mica_files.h"
#include "util.h"

/* The rest of fd, NUL-terminated, at most max bytes; NULL after
 * reporting why. */
static char *
read_all(int fd, const char *path, size_t *len, size_t max)
{
	size_t n = 0, cap = 4096;
	char *buf = xmalloc(cap);

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
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			error_msg("%s: larger than %zu bytes", path, max);
			free(buf);
			return NULL;
		}
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

char *
mica_read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;
	char *buf;

	if (fd < 0) {
		perror_msg("%s", path);
		return NULL;
	}
	buf = read_all(fd, path, &n, SIZE_MAX);
	close(fd);
	if (buf)
		*len = n;
	return buf;
}

/*
 * A configuration or spec file: a regular file of at most MICA_FILE_MAX
 * bytes (not a FIFO that blocks, not /dev/zero that never ends).
 */
static char *
read_config_file(const char *path, size_t *len)
{
	/* O_NONBLOCK: a FIFO must not hold us at open() */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	char *buf;

	if (fd < 0) {
		perror_msg("%s", path);
		return NULL;
	}
	if (fstat(fd, &st) < 0) {
		perror_msg("%s: fstat", path);
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > MICA_FILE_MAX) {
		error_msg("%s: %s (a configuration or spec file is a regular file of at most "
			  "%d MiB)", path, S_ISREG(st.st_mode) ? "too large" : "not a regular file",
			  MICA_FILE_MAX >> 20);
		close(fd);
		return NULL;
	}
	buf = read_all(fd, path, len, MICA_FILE_MAX);
	close(fd);
	return buf;
}

/*
 * The itypes spec file cfg names, as MICA finds it: a relative name from
 * the configuration file's directory (MICA's working directory).
 */
static char *
spec_path_of(const struct mica_config *cfg, const char *path)
{
	const char *slash = strrchr(path, '/');

	return cfg->itypes_spec_file[0] == '/' || !slash
		? xstrdup(cfg->itypes_spec_file)
		: xasprintf("%.*s/%s", (int)(slash - path), path, cfg->itypes_spec_file);
}

static bool
needs_spec(const struct mica_config *cfg)
{
	return cfg->itypes_spec_file && (cfg->analyses & MICA_BIT(MICA_ITYPES));
}

int
mica_config_read(const char *path, struct mica_config_text *out)
{
	struct mica_config cfg;
	char err[512];
	size_t len;
	int r;

	memset(out, 0, sizeof(*out));
	out->name = xstrdup(path);
	out->text = read_config_file(path, &len);
	if (!out->text)
		goto fail;
	mica_config_init(&cfg);
	r = mica_config_parse(&cfg, path, out->text, len, err, sizeof(err));
	if (r < 0) {
		error_msg("%s", err);
		mica_config_free(&cfg);
		goto fail;
	}
	if (needs_spec(&cfg)) {
		out->spec_name = spec_path_of(&cfg, path);
		out->spec_text = read_config_file(out->spec_name, &len);
		if (!out->spec_text) {
			error_msg("%s: cannot read itypes_spec_file '%s'", path, out->spec_name);
			mica_config_free(&cfg);
			goto fail;
		}
	}
	mica_config_free(&cfg);
	return 0;
fail:
	mica_config_text_free(out);
	return -1;
}

void
mica_config_text_free(struct mica_config_text *t)
{
	free(t->name);
	free(t->text);
	free(t->spec_name);
	free(t->spec_text);
	memset(t, 0, sizeof(*t));
}

int
mica_config_load_text(struct mica_config *cfg, const struct mica_config_text *src)
{
	char err[2560];

	mica_config_init(cfg);
	if (mica_config_parse(cfg, src->name, src->text, strlen(src->text), err,
			      sizeof(err)) < 0) {
		error_msg("%s", err);
		return -1;
	}
	if (needs_spec(cfg)) {
		if (!src->spec_text) {
			error_msg("%s: itypes_spec_file '%s' was not sent with the configuration "
				  "(micactl sends it: update micactl to micad's version)", src->name,
				  cfg->itypes_spec_file);
			return -1;
		}
		cfg->itypes_spec = itypes_spec_parse(src->spec_name ? src->spec_name
						     : cfg->itypes_spec_file, src->spec_text,
						     strlen(src->spec_text), err, sizeof(err));
		if (!cfg->itypes_spec) {
			error_msg("%s", err);
			return -1;
		}
	}
	return 0;
}

int
mica_config_load(struct mica_config *cfg, const char *path)
{
	struct mica_config_text t;
	int r;

	if (mica_config_read(path, &t) < 0)
		return -1;
	r = mica_config_load_text(cfg, &t);
	mica_config_text_free(&t);
	return r;
}

int
mica_out_dir_check(const char *dir)
{
	struct stat st;

	if (stat(dir, &st) < 0) {
		perror_msg("--mica-out %s", dir);
		if (errno == ENOENT)
			error_msg("create the directory first (mkdir -p '%s'), or choose another",
				  dir);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		error_msg("--mica-out %s: not a directory", dir);
		return -1;
	}
	if (access(dir, W_OK | X_OK) < 0) {
		perror_msg("--mica-out %s: cannot write there", dir);
		return -1;
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
