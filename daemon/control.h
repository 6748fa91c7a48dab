/*
 * The control socket between micactl and 'micad serve': where it lives,
 * and the messages on it.
 *
 * A connection is a Unix stream socket.  Each message is one frame: a
 * 32-bit length, then that many bytes of "key=value" strings, each ending
 * with a NUL byte; the first is "op=VERB".  Keys may repeat (arg=, env=).
 * File descriptors (a client's stdin, stdout, stderr and working directory
 * for 'run') travel with a frame as SCM_RIGHTS.  The daemon learns who is
 * asking from SO_PEERCRED and SO_PEERGROUPS, never from the messages.
 *
 * Requests (client -> daemon) and their replies:
 *   op=info                  -> op=info version= db= socket= [url=]
 *   op=run arg=... env=... umask= rlimit=RESOURCE:SOFT:HARD...
 *          [config_path= config= [itypes_spec_path= itypes_spec=]] [interval=]
 *          [follow_forks=1] [step=] [no_pin=1] [sample=1 [event=] [freq=] [count=]
 *          [call_graph=] [burst=U[,W]] [overhead=PCT] [no_bursts=1] [duration=S]
 *          [interval_time=S]] + fds stdin, stdout, stderr, cwd
 *                            (config and itypes_spec are the files' texts, read
 *                             by micactl; the paths only name them; limits
 *                             "inf" for unlimited)
 *                            -> op=session session= pid=, then op=progress
 *                               instructions= seconds=, ..., then op=end
 *                               reason= status= code= instructions=
 *   op=attach pid= [...] + fd stderr
 *                            -> the same (no status for a detach)
 *   op=signal sig=           (on a run/attach connection: pass a signal on
 *                             to the program; sig=0 asks to detach)
 *   op=list                  -> op=row ... per session, then op=end
 *   op=status [session=]     -> op=row ... , then op=end
 *   op=stop session=         -> op=ok
 *   op=shutdown              -> op=ok (root or the daemon's own user)
 *   op=ui                    -> op=ui url= (the web UI with the peer's token)
 *   any                      -> op=error message= on failure
 */
#ifndef MICAD_CONTROL_H
#define MICAD_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define CTL_MAX_FRAME	(4u << 20)	/* environments can be large */
#define CTL_MAX_FDS	4

/* A message being built or received. */
struct ctl_msg {
	char *buf;
	size_t len, cap;
	int fds[CTL_MAX_FDS];
	unsigned nfds;
};

void ctl_msg_init(struct ctl_msg *m, const char *op);
void ctl_msg_free(struct ctl_msg *m);	/* closes received fds not taken */
void ctl_msg_add(struct ctl_msg *m, const char *key, const char *value);
void ctl_msg_addf(struct ctl_msg *m, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The first value of key, or NULL. */
const char *ctl_msg_get(const struct ctl_msg *m, const char *key);
bool ctl_msg_is(const struct ctl_msg *m, const char *op);
/* Iterate over every value of key: start with *pos = 0; NULL at the end. */
const char *ctl_msg_next(const struct ctl_msg *m, const char *key, size_t *pos);
/* key's value as a number; false if missing or not a number. */
bool ctl_msg_get_i64(const struct ctl_msg *m, const char *key, int64_t *v);

/* Send m (and its fds, which stay open).  0, or -errno. */
int ctl_send(int sock, const struct ctl_msg *m);
/* Receive one frame into m (initialized here).  1, 0 at a clean end of
 * the connection, or -errno (-EBADMSG for a malformed frame). */
int ctl_recv(int sock, struct ctl_msg *m);
/* The same, the whole frame within timeout_ms (-1: no limit), however
 * slowly it arrives: -ETIMEDOUT after that. */
int ctl_recv_deadline(int sock, struct ctl_msg *m, int timeout_ms);
/* A frame's body (what follows its length) from memory: 1 or -EBADMSG. */
int ctl_msg_parse(struct ctl_msg *m, const void *buf, size_t len);

/* Reply helpers. */
int ctl_send_error(int sock, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ctl_send_op(int sock, const char *op);

/*
 * Socket paths.  The per-user daemon: $XDG_RUNTIME_DIR/micad/control.sock
 * (else /tmp/micad-UID/control.sock); the system one:
 * /run/micad/control.sock.  Returns a malloc'd path.  (micactl checks a
 * socket's directory and the server's credentials before it sends
 * anything: client/ctl.c, trusted_connect.)
 */
#define CTL_SYSTEM_SOCKET "/run/micad/control.sock"
char *ctl_user_socket_path(void);

/* Connect to path.  The socket fd, or -errno. */
int ctl_connect(const char *path);

#endif /* MICAD_CONTROL_H */
