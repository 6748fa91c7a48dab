/*
 * Who is asking, and whether they may trace a process (serve.h).
 *
 * The daemon may be root and so able to trace anything; a client may only
 * have traced what it could trace itself.  The kernel's rule for
 * PTRACE_ATTACH (ptrace(2), "Ptrace access mode checking") is applied to
 * the client's credentials: root may; otherwise the target's real,
 * effective and saved user and group ids must all be the client's, the
 * target must be dumpable, and Yama's ptrace_scope must allow it.
 */
#include "config.h"
#include "serve.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

int
peer_get(int sock, struct peer *p)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	memset(p, 0, sizeof(*p));
	if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0)
		return -errno;
	p->pid = cr.pid;
	p->uid = cr.uid;
	p->gid = cr.gid;
	len = 16 * sizeof(gid_t);
	for (;;) {
		p->groups = xreallocarray(p->groups, len, 1);
		if (getsockopt(sock, SOL_SOCKET, SO_PEERGROUPS, p->groups, &len) == 0)
			break;
		if (errno != ERANGE) {
			int e = errno;

			free(p->groups);
			p->groups = NULL;
			return -e;
		}
	}
	p->ngroups = (int)(len / sizeof(gid_t));
	return 0;
}

void
peer_free(struct peer *p)
{
	free(p->groups);
	p->groups = NULL;
}

/* The "Uid:" or "Gid:" line of /proc/PID/status: real, effective, saved. */
static int
status_ids(pid_t pid, const char *key, unsigned long ids[3])
{
	char path[64], line[256];
	size_t kl = strlen(key);
	FILE *f;
	int ret = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, kl) == 0 &&
		    sscanf(line + kl, "%lu %lu %lu", &ids[0], &ids[1], &ids[2]) == 3) {
			ret = 0;
			break;
		}
	fclose(f);
	return ret;
}

static pid_t
parent_of(pid_t pid)
{
	char path[64], line[256];
	FILE *f;
	long ppid = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "PPid: %ld", &ppid) == 1)
			break;
	fclose(f);
	return (pid_t)ppid;
}

static int
yama_scope(void)
{
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
	int v = 0;

	if (!f)
		return 0;	/* no Yama */
	if (fscanf(f, "%d", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

int
access_may_attach(const struct peer *p, pid_t pid, char *why, size_t whysz)
{
	unsigned long uids[3], gids[3];
	char path[64];
	struct stat st;
	int scope;

	/* Its files but the directory itself belong to root while the process
	 * is not dumpable. */
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (stat(path, &st) < 0 || status_ids(pid, "Uid:", uids) < 0 ||
	    status_ids(pid, "Gid:", gids) < 0) {
		snprintf(why, whysz, "no process %d", (int)pid);
		return -1;
	}
	if (p->uid == 0)
		return 0;
	for (int i = 0; i < 3; i++)
		if (uids[i] != p->uid) {
			snprintf(why, whysz,
				 "process %d belongs to uid %lu and you are uid %u: a client may "
				 "only trace its own processes (or be root)",
				 (int)pid, uids[i], (unsigned)p->uid);
			return -1;
		}
	for (int i = 0; i < 3; i++)
		if (gids[i] != p->gid) {
			snprintf(why, whysz,
				 "process %d runs with gid %lu and you are gid %u: the kernel would "
				 "refuse you PTRACE_ATTACH (a setgid program?), so micad does too",
				 (int)pid, gids[i], (unsigned)p->gid);
			return -1;
		}
	/* /proc/PID/status belongs to root when the process is not dumpable. */
	if (st.st_uid != p->uid) {
		snprintf(why, whysz,
			 "process %d is not dumpable (it changed credentials or called "
			 "prctl(PR_SET_DUMPABLE, 0)): only root may trace it", (int)pid);
		return -1;
	}
	scope = yama_scope();
	if (scope >= 2) {
		snprintf(why, whysz,
			 "kernel.yama.ptrace_scope is %d: only root may attach to processes", scope);
		return -1;
	}
	if (scope == 1) {
		pid_t q = pid;

		while (q > 1 && q != p->pid)
			q = parent_of(q);
		if (q != p->pid) {
			snprintf(why, whysz,
				 "kernel.yama.ptrace_scope is 1: you may only attach to your own "
				 "descendants, and process %d is not one of micactl's (run it with "
				 "'micactl run', or ask root)", (int)pid);
			return -1;
		}
	}
	return 0;
}
