/*
 * micactl query: one SQL statement against the results database, on a
 * read-only connection, printed as an aligned table for people or as CSV
 * or JSON for programs.  A statement that would write is refused before it
 * runs; bad SQL gets SQLite's own message.  Text from traced programs is
 * escaped for the terminal in the table (and in CSV written to one).
 */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "client/results_db.h"
#include "commands.h"
#include "store/store_json.h"
#include "util.h"

enum format { F_TABLE, F_CSV, F_JSON };

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: micactl query [OPTIONS] 'SQL'\n"
		"\n"
		"Run one SQL statement on the results database, read-only (its tables and\n"
		"views, each with an example: man micad-sql), e.g.\n"
		"  micactl query 'SELECT id, command, end_reason FROM session'\n"
		"\n"
		"Options:\n"
		"  -f, --format FMT  table (aligned, the default), csv (RFC 4180, a header\n"
		"                    line) or json (an array of objects)\n"
		"      --db FILE     the results database (default: the per-user one)\n"
		"  -h, --help        this help\n");
}

/* A result kept as text for the table (which needs every width first). */
struct cell {
	char *text;	/* NULL: SQL NULL */
	bool right;	/* numbers align right */
};

/* A value as text: integers as SQLite renders them, reals with as many
 * significant digits as it takes to read back the same double (up to 17;
 * SQLite's own rendering keeps 15), blobs as hex (malloc'd; NULL for
 * NULL). */
static char *
cell_text(sqlite3_stmt *q, int i)
{
	int type = sqlite3_column_type(q, i);

	if (type == SQLITE_NULL)
		return NULL;
	if (type == SQLITE_FLOAT) {
		char buf[40];
		double v = sqlite3_column_double(q, i);

		if (!isfinite(v))
			return xstrdup(isnan(v) ? "NaN" : v > 0 ? "Inf" : "-Inf");
		json_fmt_real(buf, sizeof(buf), v);
		return xstrdup(buf);
	}
	if (type == SQLITE_BLOB) {
		const unsigned char *b = sqlite3_column_blob(q, i);
		int n = sqlite3_column_bytes(q, i);
		char *s = xmalloc(2 * (size_t)n + 4);

		strcpy(s, "x'");
		for (int k = 0; k < n; k++)
			sprintf(s + 2 + 2 * k, "%02x", b[k]);
		strcat(s, "'");
		return s;
	}
	return xstrdup((const char *)sqlite3_column_text(q, i));
}

/* A cell for people to read (the table, or CSV on a terminal): text from
 * a traced program (command lines, paths, symbols) reaches the terminal
 * escaped (term_escape). */
static char *
cell_text_escaped(sqlite3_stmt *q, int i)
{
	char *s = cell_text(q, i), *e;

	if (!s)
		return NULL;
	e = term_escape(s);
	free(s);
	return e;
}

static void
csv_field(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!s[strcspn(s, ",\"\r\n")]) {
		fputs(s, f);
		return;
	}
	putc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			putc('"', f);
		putc(*s, f);
	}
	putc('"', f);
}

static void
json_value(FILE *f, sqlite3_stmt *q, int i)
{
	char *s;

	switch (sqlite3_column_type(q, i)) {
	case SQLITE_NULL:
		fputs("null", f);
		break;
	case SQLITE_INTEGER:
		fprintf(f, "%lld", (long long)sqlite3_column_int64(q, i));
		break;
	case SQLITE_FLOAT:
		json_put_real(f, sqlite3_column_double(q, i));
		break;
	default:
		s = cell_text(q, i);
		json_put_string(f, s);
		free(s);
	}
}

/* Display width of UTF-8 text: one column per character. */
static size_t
width(const char *s)
{
	size_t w = 0;

	for (; s && *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

static void
pad(FILE *f, size_t n)
{
	while (n--)
		putc(' ', f);
}

static void
print_table(FILE *f, sqlite3_stmt *q, struct cell *cells, size_t rows, int cols)
{
	size_t *w = xcalloc((size_t)cols, sizeof(*w));
	bool *right = xcalloc((size_t)cols, sizeof(*right));

	/* A column of numbers (NULLs aside) aligns right, header included. */
	for (int c = 0; c < cols; c++) {
		w[c] = width(sqlite3_column_name(q, c));
		right[c] = rows > 0;
		for (size_t r = 0; r < rows; r++) {
			const struct cell *x = &cells[r * cols + c];
			size_t cw = width(x->text);

			if (cw > w[c])
				w[c] = cw;
			if (x->text && !x->right)
				right[c] = false;
		}
	}
	for (int c = 0; c < cols; c++) {
		const char *name = sqlite3_column_name(q, c);
		size_t gap = w[c] - width(name);

		if (right[c])
			pad(f, gap);
		fputs(name, f);
		if (c + 1 < cols)
			pad(f, (right[c] ? 0 : gap) + 2);
	}
	putc('\n', f);
	for (int c = 0; c < cols; c++) {
		for (size_t k = 0; k < w[c]; k++)
			putc('-', f);
		if (c + 1 < cols)
			pad(f, 2);
	}
	putc('\n', f);
	for (size_t r = 0; r < rows; r++) {
		for (int c = 0; c < cols; c++) {
			const struct cell *x = &cells[r * cols + c];
			size_t gap = w[c] - width(x->text);

			if (right[c])
				pad(f, gap);
			fputs(x->text ? x->text : "", f);
			if (c + 1 < cols)
				pad(f, (right[c] ? 0 : gap) + 2);
		}
		putc('\n', f);
	}
	free(right);
	free(w);
}

/* Step q to the end, printing its rows.  -1 after reporting SQLite's
 * error. */
static int
run(sqlite3 *db, sqlite3_stmt *q, enum format format, FILE *f)
{
	int cols = sqlite3_column_count(q), rc;
	struct cell *cells = NULL;
	size_t rows = 0;
	bool tty = isatty(fileno(f));

	if (format == F_CSV && cols) {
		for (int c = 0; c < cols; c++) {
			if (c)
				putc(',', f);
			csv_field(f, sqlite3_column_name(q, c));
		}
		putc('\n', f);
	}
	if (format == F_JSON && cols)
		putc('[', f);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		switch (format) {
		case F_TABLE:
			cells = xreallocarray(cells, (rows + 1) * (size_t)cols, sizeof(*cells));
			for (int c = 0; c < cols; c++) {
				int t = sqlite3_column_type(q, c);

				cells[rows * cols + c].text = cell_text_escaped(q, c);
				cells[rows * cols + c].right = t == SQLITE_INTEGER || t == SQLITE_FLOAT;
			}
			break;
		case F_CSV:
			for (int c = 0; c < cols; c++) {
				char *s = tty ? cell_text_escaped(q, c)
					      : cell_text(q, c);

				if (c)
					putc(',', f);
				csv_field(f, s);
				free(s);
			}
			putc('\n', f);
			break;
		case F_JSON:
			fputs(rows ? ",\n{" : "\n{", f);
			for (int c = 0; c < cols; c++) {
				if (c)
					putc(',', f);
				json_put_string(f, sqlite3_column_name(q, c));
				putc(':', f);
				json_value(f, q, c);
			}
			putc('}', f);
			break;
		}
		rows++;
	}
	if (rc == SQLITE_DONE && format == F_TABLE && cols)
		print_table(f, q, cells, rows, cols);
	if (rc == SQLITE_DONE && format == F_JSON && cols)
		fputs(rows ? "\n]\n" : "]\n", f);
	for (size_t i = 0; i < rows * (size_t)cols && format == F_TABLE; i++)
		free(cells[i].text);
	free(cells);
	if (rc != SQLITE_DONE) {
		error_msg("%s", sqlite3_errmsg(db));
		return -1;
	}
	return 0;
}

int
cmd_ctl_query(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "db", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	enum format format = F_TABLE;
	const char *db_opt = NULL, *sql, *tail;
	char *path = NULL;
	struct store *st = NULL;
	sqlite3_stmt *q = NULL;
	sqlite3 *db;
	int c, ret = 1;

	while ((c = getopt_long(argc, argv, "f:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "table") == 0) {
				format = F_TABLE;
			} else if (strcmp(optarg, "csv") == 0) {
				format = F_CSV;
			} else if (strcmp(optarg, "json") == 0) {
				format = F_JSON;
			} else {
				error_msg("--format: '%s' is not one of table, csv, json", optarg);
				return 2;
			}
			break;
		case 'd':
			db_opt = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		error_msg(optind == argc ? "query: no SQL given (micactl query 'SELECT ...')"
			  : "query: one SQL argument (quote it)");
		usage(stderr);
		return 2;
	}
	sql = argv[optind];
	if (!(path = results_db_path(db_opt)) || !(st = results_db_open(path)))
		goto out;
	db = store_sqlite(st);
	/* Belt and braces: the connection is read-only already. */
	if (sqlite3_exec(db, "PRAGMA query_only = 1", NULL, NULL, NULL) != SQLITE_OK) {
		error_msg("%s: %s", path, sqlite3_errmsg(db));
		goto out;
	}
	if (sqlite3_prepare_v2(db, sql, -1, &q, &tail) != SQLITE_OK) {
		error_msg("%s", sqlite3_errmsg(db));
		goto out;
	}
	if (!q) {
		error_msg("query: the SQL holds no statement");
		goto out;
	}
	tail += strspn(tail, " \t\r\n;");
	if (*tail) {
		error_msg("query: one statement at a time (left over: %.40s)", tail);
		goto out;
	}
	if (!sqlite3_stmt_readonly(q)) {
		error_msg("micactl query is read-only: this statement would change the database "
			  "(copy the file and use sqlite3 on the copy to experiment)");
		goto out;
	}
	if (run(db, q, format, stdout) < 0)
		goto out;
	if (fflush(stdout) != 0) {
		perror_msg("cannot write the standard output");
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(q);
	store_close(st);
	free(path);
	return ret;
}
