/*
 * micadvg: the valgrind tool of micad's valgrind engine.  It runs inside
 * the traced program's process (valgrind's core and VEX are linked into
 * it) and streams one record per executed instruction to micad over a
 * Unix socket, in the format of vg_proto.h.
 *
 * Every superblock is instrumented the same way: after each instruction's
 * IMark, the register values its recipe asks for are read (IR Gets, so
 * they are the values before the instruction runs); at the instruction's
 * end (before the next IMark, before a side exit, at the end of the
 * superblock) dirty helpers append the record to a buffer.  A record is
 * only written once its instruction has completed: a load or store that
 * faults leaves the superblock before the helper, as do the exits VEX
 * takes to raise a signal.  A side exit writes the record of its own
 * instruction, guarded by the exit's condition, with the exit's target as
 * next pc.
 *
 * Why register values and not the addresses of the loads and stores VEX
 * performs: VEX's first optimisation pass, which runs before a tool sees
 * the code, removes loads whose result is dead (a pop into a register
 * overwritten next, a cmp whose flags nobody reads), and some accesses
 * are not in the IR at all (prefetches, the operands of a REP string
 * instruction whose count is zero) or are at another address (bt with a
 * register bit offset) or in another order (cmps).  micad evaluates the
 * memory operands from these values with the decoder step mode uses, so
 * both engines report the same accesses.
 *
 * Threads: valgrind runs one at a time and switches only between
 * superblocks; a MVG_M_THREAD marker says whose records follow.  Fork:
 * the child reconnects (its own stream); exec: valgrind execs itself on
 * the new program (--trace-children=yes) and the new tool connects again.
 */
#include "pub_tool_basics.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "libvex_guest_amd64.h"

#include "vg_proto.h"

/* Functions of valgrind's core and VEX outside the tool interface (all in
 * the static libraries the tool links): raw system calls for the socket,
 * moving an fd out of the client's reach, and the flags of the guest. */
extern SysRes VG_(do_syscall)(UWord sysno, RegWord a1, RegWord a2, RegWord a3, RegWord a4,
			      RegWord a5, RegWord a6, RegWord a7, RegWord a8);
extern Int VG_(safe_fd)(Int oldfd);
extern Int VG_(socket)(Int domain, Int type, Int protocol);
extern ULong amd64g_calculate_rflags_all(ULong cc_op, ULong cc_dep1, ULong cc_dep2,
					 ULong cc_ndep);

#define BUF_WORDS	(1 << 17)	/* 1 MiB of records per write */
#define FLUSH_MS	50		/* at most this old when a timeslice starts */
#define MAX_VALS	32
#define MAX_THREADS	4096

static const HChar *clo_socket;

static Int sock = -1;			/* -1: not recording */
static Bool recording;
static ULong buf[BUF_WORDS];
static ULong *pos = buf;
static UInt last_flush_ms;
static ThreadId cur_tid = VG_INVALID_THREADID;
/* Per valgrind thread: the OS thread that created it, and the code of an
 * exit system call it made. */
static Int parent_os_tid[MAX_THREADS];
static Long exit_code[MAX_THREADS];

/* ---- the connection ---- */

static void
stop_recording(const HChar *why)
{
	if (sock >= 0) {
		VG_(close)(sock);
		sock = -1;
	}
	if (recording && why)
		VG_(umsg)("micadvg: %s: the program goes on without micad\n", why);
	recording = False;
	pos = buf;
}

static Bool
send_all(const void *p, SizeT n)
{
	const UChar *b = p;

	while (n > 0) {
		SysRes r = VG_(do_syscall)(__NR_sendto, sock, (RegWord)b, n, VKI_MSG_NOSIGNAL,
					   0, 0, 0, 0);

		if (sr_isError(r)) {
			if (sr_Err(r) == VKI_EINTR)
				continue;
			return False;
		}
		b += sr_Res(r);
		n -= sr_Res(r);
	}
	return True;
}

static Bool
recv_all(void *p, SizeT n)
{
	UChar *b = p;

	while (n > 0) {
		Int r = VG_(read)(sock, b, (Int)n);

		if (r <= 0)
			return False;
		b += r;
		n -= (SizeT)r;
	}
	return True;
}

static void
flush(void)
{
	SizeT n = (SizeT)(pos - buf) * sizeof(buf[0]);

	pos = buf;
	last_flush_ms = VG_(read_millisecond_timer)();
	if (sock >= 0 && n && !send_all(buf, n))
		stop_recording("micad stopped reading the records");
}

static inline void
put(ULong w)
{
	if (UNLIKELY(pos == buf + BUF_WORDS))
		flush();
	*pos++ = w;
}

/* Connect to micad and say who we are; recording if it says so. */
static void
connect_to_micad(ULong reason)
{
	struct vki_sockaddr_un sa;
	const HChar *exe = VG_(args_the_exename), *cwd = VG_(get_startup_wd)();
	SizeT exe_len = VG_(strlen)(exe) + 1, cwd_len = VG_(strlen)(cwd) + 1;
	ULong hello[MVG_HELLO_WORDS], reply = MVG_REPLY_IDLE;
	SysRes r;
	Int fd;

	recording = False;
	pos = buf;
	cur_tid = VG_INVALID_THREADID;
	if (VG_(strlen)(clo_socket) >= sizeof(sa.sun_path) || exe_len > MVG_PATH_MAX ||
	    cwd_len > MVG_PATH_MAX) {
		VG_(umsg)("micadvg: socket path or program name too long: not recording\n");
		return;
	}
	fd = VG_(socket)(VKI_AF_UNIX, VKI_SOCK_STREAM, 0);
	if (fd < 0) {
		VG_(umsg)("micadvg: cannot create a socket: not recording\n");
		return;
	}
	sock = VG_(safe_fd)(fd);	/* out of the client's reach, closed on exec */
	VG_(memset)(&sa, 0, sizeof(sa));
	sa.sun_family = VKI_AF_UNIX;
	VG_(strcpy)(sa.sun_path, clo_socket);
	r = VG_(do_syscall)(__NR_connect, sock, (RegWord)&sa, sizeof(sa), 0, 0, 0, 0, 0);
	if (sr_isError(r)) {
		VG_(umsg)("micadvg: cannot connect to micad at %s (error %lu): not recording\n",
			  clo_socket, sr_Err(r));
		stop_recording(NULL);
		return;
	}
	hello[MVG_HELLO_MAGIC] = MVG_MAGIC;
	hello[MVG_HELLO_VERSION] = MVG_VERSION;
	hello[MVG_HELLO_PID] = (ULong)VG_(getpid)();
	hello[MVG_HELLO_PPID] = (ULong)VG_(getppid)();
	hello[MVG_HELLO_REASON] = reason;
	hello[MVG_HELLO_EXE_LEN] = exe_len;
	hello[MVG_HELLO_CWD_LEN] = cwd_len;
	{
		static HChar paths[2 * MVG_PATH_MAX + 16];
		SizeT n = 0;

		VG_(memset)(paths, 0, sizeof(paths));
		VG_(memcpy)(paths, exe, exe_len);
		n = (exe_len + 7) & ~(SizeT)7;
		VG_(memcpy)(paths + n, cwd, cwd_len);
		n += (cwd_len + 7) & ~(SizeT)7;
		if (!send_all(hello, sizeof(hello)) || !send_all(paths, n) ||
		    !recv_all(&reply, sizeof(reply))) {
			VG_(umsg)("micadvg: micad did not answer: not recording\n");
			stop_recording(NULL);
			return;
		}
	}
	if (reply != MVG_REPLY_RECORD) {
		stop_recording(NULL);
		return;
	}
	recording = True;
	last_flush_ms = VG_(read_millisecond_timer)();
}

/* ---- the helpers called from instrumented code ---- */

static void mv_put1(ULong a) { put(a); }
static void mv_put2(ULong a, ULong b)
{
	if (UNLIKELY(pos + 2 > buf + BUF_WORDS))
		flush();
	pos[0] = a;
	pos[1] = b;
	pos += 2;
}
static void mv_put3(ULong a, ULong b, ULong c)
{
	if (UNLIKELY(pos + 3 > buf + BUF_WORDS))
		flush();
	pos[0] = a;
	pos[1] = b;
	pos[2] = c;
	pos += 3;
}
static void mv_put4(ULong a, ULong b, ULong c, ULong d)
{
	if (UNLIKELY(pos + 4 > buf + BUF_WORDS))
		flush();
	pos[0] = a;
	pos[1] = b;
	pos[2] = c;
	pos[3] = d;
	pos += 4;
}
static void mv_put5(ULong a, ULong b, ULong c, ULong d, ULong e)
{
	if (UNLIKELY(pos + 5 > buf + BUF_WORDS))
		flush();
	pos[0] = a;
	pos[1] = b;
	pos[2] = c;
	pos[3] = d;
	pos[4] = e;
	pos += 5;
}
static void mv_put6(ULong a, ULong b, ULong c, ULong d, ULong e, ULong f)
{
	if (UNLIKELY(pos + 6 > buf + BUF_WORDS))
		flush();
	pos[0] = a;
	pos[1] = b;
	pos[2] = c;
	pos[3] = d;
	pos[4] = e;
	pos[5] = f;
	pos += 6;
}

static const struct {
	const HChar *name;
	void *fn;
} puts_by_n[7] = {
	{ NULL, NULL },
	{ "mv_put1", mv_put1 }, { "mv_put2", mv_put2 }, { "mv_put3", mv_put3 },
	{ "mv_put4", mv_put4 }, { "mv_put5", mv_put5 }, { "mv_put6", mv_put6 },
};

/* ---- the recipes micad gave, by pc ---- */

struct known {
	Addr pc;		/* 0: empty */
	ULong recipe;
	UInt number;		/* micad's, in the records */
	UChar len;
	UChar bytes[15];
};

static struct known *known;
static SizeT known_cap, known_used;

static inline SizeT
known_hash(Addr pc)
{
	return (SizeT)((pc * 0x9e3779b97f4a7c15ULL) >> 20);
}

static struct known *
known_slot(Addr pc)
{
	SizeT i = known_hash(pc) & (known_cap - 1);

	while (known[i].pc && known[i].pc != pc)
		i = (i + 1) & (known_cap - 1);
	return &known[i];
}

static void
known_grow(void)
{
	struct known *old = known;
	SizeT old_cap = known_cap;

	known_cap = old_cap ? old_cap * 2 : 1 << 14;
	known = VG_(calloc)("micadvg.known", known_cap, sizeof(*known));
	for (SizeT i = 0; i < old_cap; i++)
		if (old[i].pc)
			*known_slot(old[i].pc) = old[i];
	if (old)
		VG_(free)(old);
}

/* Ask micad about n instructions; False if it is gone. */
static Bool
query(const Addr *pcs, const UInt *lens, UInt n)
{
	static ULong answers[MVG_QUERY_MAX];

	put(MVG_MARK(MVG_M_QUERY, n));
	for (UInt j = 0; j < n; j++) {
		UChar b[16];
		ULong w1, w2;

		VG_(memset)(b, 0, sizeof(b));
		b[0] = (UChar)lens[j];
		VG_(memcpy)(b + 1, (void *)pcs[j], lens[j]);
		VG_(memcpy)(&w1, b, 8);
		VG_(memcpy)(&w2, b + 8, 8);
		put(pcs[j]);
		put(w1);
		put(w2);
	}
	flush();
	if (!recording || !recv_all(answers, n * sizeof(answers[0]))) {
		stop_recording("micad did not answer a query");
		return False;
	}
	for (UInt j = 0; j < n; j++) {
		struct known *k = known_slot(pcs[j]);

		if (k->pc != pcs[j])
			known_used++;
		k->pc = pcs[j];
		k->recipe = answers[j] & MVG_RECIPE_MASK;
		k->number = (UInt)(answers[j] >> MVG_NUMBER_SHIFT);
		k->len = (UChar)lens[j];
		VG_(memcpy)(k->bytes, (void *)pcs[j], lens[j]);
	}
	return True;
}

/*
 * Make sure micad knows every instruction of the superblock with the bytes
 * it has now (self-modifying code is retranslated, and then asked about
 * again).  Returns False if micad is gone.
 */
static Bool
query_recipes(const IRSB *sb)
{
	static Addr pcs[MVG_QUERY_MAX];
	static UInt lens[MVG_QUERY_MAX];
	UInt n = 0;

	for (Int i = 0; i < sb->stmts_used; i++) {
		const IRStmt *st = sb->stmts[i];
		Addr pc;
		UInt len;
		struct known *k;
		Bool dup = False;

		if (!st || st->tag != Ist_IMark)
			continue;
		pc = (Addr)st->Ist.IMark.addr;
		len = st->Ist.IMark.len;
		if (len == 0 || len > 15)
			continue;
		if ((known_used + n + 1) * 2 > known_cap)
			known_grow();
		k = known_slot(pc);
		if (k->pc == pc && k->len == len && VG_(memcmp)(k->bytes, (void *)pc, len) == 0)
			continue;
		for (UInt j = 0; j < n; j++)
			dup |= pcs[j] == pc;
		if (dup)
			continue;
		if (n == MVG_QUERY_MAX) {
			if (!query(pcs, lens, n))
				return False;
			n = 0;
		}
		pcs[n] = pc;
		lens[n++] = len;
	}
	return n == 0 || query(pcs, lens, n);
}

/* ---- instrumentation ---- */

static const Int gpr_offset[16] = {
	offsetof(VexGuestAMD64State, guest_RAX), offsetof(VexGuestAMD64State, guest_RCX),
	offsetof(VexGuestAMD64State, guest_RDX), offsetof(VexGuestAMD64State, guest_RBX),
	offsetof(VexGuestAMD64State, guest_RSP), offsetof(VexGuestAMD64State, guest_RBP),
	offsetof(VexGuestAMD64State, guest_RSI), offsetof(VexGuestAMD64State, guest_RDI),
	offsetof(VexGuestAMD64State, guest_R8), offsetof(VexGuestAMD64State, guest_R9),
	offsetof(VexGuestAMD64State, guest_R10), offsetof(VexGuestAMD64State, guest_R11),
	offsetof(VexGuestAMD64State, guest_R12), offsetof(VexGuestAMD64State, guest_R13),
	offsetof(VexGuestAMD64State, guest_R14), offsetof(VexGuestAMD64State, guest_R15),
};

/* The instruction being instrumented. */
struct cur {
	Bool open;
	Addr pc;
	UInt len;
	UInt number;
	ULong recipe;
	UInt nvals;
	IRExpr *vals[MAX_VALS];
};

static IRExpr *
get_to_tmp(IRSB *sb, Int offset)
{
	IRTemp t = newIRTemp(sb->tyenv, Ity_I64);

	addStmtToIRSB(sb, IRStmt_WrTmp(t, IRExpr_Get(offset, Ity_I64)));
	return IRExpr_RdTmp(t);
}

/* After the IMark: read what the recipe asks for, before the instruction
 * changes it. */
static void
begin_insn(IRSB *sb, struct cur *c, Addr pc, UInt len)
{
	struct known *k = known_slot(pc);
	ULong r = k->recipe;

	/* query_recipes() asked about every IMark of the superblock. */
	tl_assert(k->pc == pc && k->len == len);
	c->open = True;
	c->pc = pc;
	c->len = len;
	c->number = k->number;
	c->recipe = r;
	c->nvals = 0;
	for (Int i = 0; i < 16; i++)
		if (r & MVG_R_GPR(i))
			c->vals[c->nvals++] = get_to_tmp(sb, gpr_offset[i]);
	if (r & MVG_R_FS)
		c->vals[c->nvals++] = get_to_tmp(sb, offsetof(VexGuestAMD64State, guest_FS_CONST));
	if (r & MVG_R_GS)
		c->vals[c->nvals++] = get_to_tmp(sb, offsetof(VexGuestAMD64State, guest_GS_CONST));
	if (r & MVG_R_RFLAGS) {
		IRExpr *op = get_to_tmp(sb, offsetof(VexGuestAMD64State, guest_CC_OP));
		IRExpr *d1 = get_to_tmp(sb, offsetof(VexGuestAMD64State, guest_CC_DEP1));
		IRExpr *d2 = get_to_tmp(sb, offsetof(VexGuestAMD64State, guest_CC_DEP2));
		IRExpr *nd = get_to_tmp(sb, offsetof(VexGuestAMD64State, guest_CC_NDEP));
		IRTemp t = newIRTemp(sb->tyenv, Ity_I64);

		addStmtToIRSB(sb, IRStmt_WrTmp(t, mkIRExprCCall(Ity_I64, 0,
			"amd64g_calculate_rflags_all", &amd64g_calculate_rflags_all,
			mkIRExprVec_4(op, d1, d2, nd))));
		c->vals[c->nvals++] = IRExpr_RdTmp(t);
	}
	if (r & MVG_R_VSIB) {
		Int ymm0 = offsetof(VexGuestAMD64State, guest_YMM0);
		Int size = offsetof(VexGuestAMD64State, guest_YMM1) - ymm0;
		Int idx = (Int)((r >> MVG_R_VINDEX_SHIFT) & 15);
		Int mask = (Int)((r >> MVG_R_VMASK_SHIFT) & 15);

		for (Int lane = 0; lane < 4; lane++)
			c->vals[c->nvals++] = get_to_tmp(sb, ymm0 + idx * size + 8 * lane);
		for (Int lane = 0; lane < 4; lane++)
			c->vals[c->nvals++] = get_to_tmp(sb, ymm0 + mask * size + 8 * lane);
	}
}

/* The record of the current instruction: next is where execution goes
 * on (an atom; NULL: pc + len), guard the condition of a side exit (NULL:
 * always). */
static void
end_insn(IRSB *sb, struct cur *c, IRExpr *next, IRExpr *guard)
{
	IRExpr *w[MAX_VALS + 2];
	UInt n = 0;
	ULong hdr = (ULong)c->number | (ULong)c->nvals << MVG_NVALS_SHIFT;

	if (next && next->tag == Iex_Const && next->Iex.Const.con->tag == Ico_U64 &&
	    next->Iex.Const.con->Ico.U64 == c->pc + c->len)
		next = NULL;
	w[n++] = NULL;	/* the header, below */
	if (next) {
		hdr |= MVG_HAS_NEXT;
		w[n++] = next;
	}
	w[0] = mkIRExpr_HWord(hdr);
	for (UInt i = 0; i < c->nvals; i++)
		w[n++] = c->vals[i];
	for (UInt i = 0; i < n;) {
		UInt k = n - i < 6 ? n - i : 6;
		IRExpr **args;
		IRDirty *d;

		switch (k) {
		case 1: args = mkIRExprVec_1(w[i]); break;
		case 2: args = mkIRExprVec_2(w[i], w[i + 1]); break;
		case 3: args = mkIRExprVec_3(w[i], w[i + 1], w[i + 2]); break;
		case 4: args = mkIRExprVec_4(w[i], w[i + 1], w[i + 2], w[i + 3]); break;
		case 5: args = mkIRExprVec_5(w[i], w[i + 1], w[i + 2], w[i + 3], w[i + 4]); break;
		default:
			args = mkIRExprVec_6(w[i], w[i + 1], w[i + 2], w[i + 3], w[i + 4],
					     w[i + 5]);
			break;
		}
		d = unsafeIRDirty_0_N(0, puts_by_n[k].name,
				      VG_(fnptr_to_fnentry)(puts_by_n[k].fn), args);
		if (guard)
			d->guard = guard;
		addStmtToIRSB(sb, IRStmt_Dirty(d));
		i += k;
	}
}

/* Does a jump of this kind leave the instruction completed?  The others
 * raise a signal at it (it is re-executed, or the program dies). */
static Bool
completes(IRJumpKind jk)
{
	switch (jk) {
	case Ijk_EmFail:
	case Ijk_NoDecode:
	case Ijk_MapFail:
	case Ijk_SigILL:
	case Ijk_SigSEGV:
	case Ijk_SigBUS:
	case Ijk_SigFPE:
	case Ijk_SigFPE_IntDiv:
	case Ijk_SigFPE_IntOvf:
		return False;
	default:
		return True;	/* Ijk_SigTRAP: int3 has run, the trap follows it */
	}
}

static IRSB *
mv_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
	      const VexGuestExtents *vge, const VexArchInfo *archinfo_host, IRType gWordTy,
	      IRType hWordTy)
{
	struct cur c = { .open = False };
	IRSB *out;
	Int i = 0;

	(void)closure;
	(void)layout;
	(void)vge;
	(void)archinfo_host;
	(void)gWordTy;
	(void)hWordTy;
	if (!recording || !query_recipes(in))
		return in;
	out = deepCopyIRSBExceptStmts(in);
	/* The preamble (self-modifying-code checks) stays as it is. */
	while (i < in->stmts_used && in->stmts[i]->tag != Ist_IMark)
		addStmtToIRSB(out, in->stmts[i++]);
	for (; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		if (!st)
			continue;
		if (st->tag == Ist_IMark) {
			Addr pc = (Addr)st->Ist.IMark.addr;

			if (c.open)
				end_insn(out, &c, mkIRExpr_HWord(pc), NULL);
			addStmtToIRSB(out, st);
			c.open = False;
			if (st->Ist.IMark.len > 0 && st->Ist.IMark.len <= 15)
				begin_insn(out, &c, pc, st->Ist.IMark.len);
			continue;
		}
		if (st->tag == Ist_Exit && c.open && completes(st->Ist.Exit.jk) &&
		    st->Ist.Exit.dst->tag == Ico_U64) {
			ULong dst = st->Ist.Exit.dst->Ico.U64;

			if (dst != c.pc || (c.recipe & MVG_R_SELF_EXIT))
				end_insn(out, &c, mkIRExpr_HWord(dst), st->Ist.Exit.guard);
		}
		addStmtToIRSB(out, st);
	}
	if (c.open && completes(in->jumpkind))
		end_insn(out, &c, in->next, NULL);
	return out;
}

/* ---- events ---- */

static void
switch_thread(ThreadId tid)
{
	if (tid == cur_tid || !recording)
		return;
	cur_tid = tid;
	put(MVG_MARK(MVG_M_THREAD, (ULong)VG_(gettid)()));
}

static void
mv_start_client_code(ThreadId tid, ULong blocks)
{
	(void)blocks;
	switch_thread(tid);
	if (recording && pos != buf && VG_(read_millisecond_timer)() - last_flush_ms > FLUSH_MS)
		flush();
}

static void
mv_thread_create(ThreadId parent, ThreadId child)
{
	if (child < MAX_THREADS) {
		parent_os_tid[child] = VG_(gettid)();
		exit_code[child] = -1;
	}
	(void)parent;
}

static void
mv_thread_first_insn(ThreadId tid)
{
	if (!recording)
		return;
	put(MVG_MARK(MVG_M_THREAD_START, (ULong)VG_(gettid)()));
	put((ULong)(tid < MAX_THREADS ? parent_os_tid[tid] : 0));
	cur_tid = tid;
}

static void
mv_thread_exit(ThreadId tid)
{
	if (!recording)
		return;
	switch_thread(tid);
	put(MVG_MARK(MVG_M_THREAD_EXIT, (ULong)VG_(gettid)()));
	put(tid < MAX_THREADS && exit_code[tid] >= 0 ? (ULong)((exit_code[tid] & 0xff) << 8)
		: MVG_STATUS_UNKNOWN);
}

static void
mv_signal(ThreadId tid, Int sig, Bool alt_stack)
{
	(void)alt_stack;
	if (!recording)
		return;
	switch_thread(tid);
	put(MVG_MARK(MVG_M_SIGNAL, (ULong)sig));
}

static void
mv_signal_return(ThreadId tid, Int sig)
{
	(void)sig;
	if (!recording)
		return;
	switch_thread(tid);
	put(MVG_MARK(MVG_M_SIGRETURN, (ULong)VG_(get_IP)(tid) & MVG_PC_MASK));
}

static void
mv_pre_syscall(ThreadId tid, UInt nr, UWord *args, UInt nargs)
{
	if (!recording)
		return;
	switch_thread(tid);
	if (nr == __NR_exit && nargs >= 1 && tid < MAX_THREADS)
		exit_code[tid] = (Long)(args[0] & 0xff);
	if (nr == __NR_exit_group && nargs >= 1)
		put(MVG_MARK(MVG_M_EXIT_GROUP, args[0] & 0xff));
	/* The system call may block (or be an execve, which ends this
	 * stream): micad gets what ran before it. */
	flush();
}

static void
mv_post_syscall(ThreadId tid, UInt nr, UWord *args, UInt nargs, SysRes res)
{
	Bool forked = nr == __NR_fork || nr == __NR_vfork ||
		      (nr == __NR_clone && nargs >= 1 && !(args[0] & VKI_CLONE_THREAD));

	if (!recording || !forked || sr_isError(res) || sr_Res(res) == 0)
		return;
	switch_thread(tid);
	put(MVG_MARK(MVG_M_FORK, (ULong)sr_Res(res)));
	put((ULong)VG_(gettid)());
	flush();
}

static void
mv_atfork_pre(ThreadId tid)
{
	(void)tid;
	if (recording)
		flush();	/* the child must not inherit (and send) records */
}

static void
mv_atfork_child(ThreadId tid)
{
	(void)tid;
	if (sock < 0)
		return;		/* not recording: stay so in the child */
	VG_(close)(sock);	/* the parent's connection */
	sock = -1;
	connect_to_micad(MVG_FORK);
}

/* ---- setup ---- */

static Bool
mv_process_cmd_line_option(const HChar *arg)
{
	if VG_STR_CLO(arg, "--micadvg-socket", clo_socket) {
	} else {
		return False;
	}
	return True;
}

static void
mv_print_usage(void)
{
	VG_(printf)("    --micadvg-socket=PATH     micad's socket (micad passes it)\n");
}

static void
mv_print_debug_usage(void)
{
	VG_(printf)("    (none)\n");
}

static void
mv_post_clo_init(void)
{
	if (!clo_socket) {
		VG_(fmsg_bad_option)("--micadvg-socket", "micadvg is micad's tool: run it with "
				     "'micad run --engine=valgrind'\n");
	}
	/*
	 * One IMark, one executed instruction: no chasing, whose &&-idiom
	 * recovery runs the instructions between two conditional branches
	 * to one target speculatively (IMarks of instructions that did not
	 * run), nor loop unrolling (callgrind forces both off too).  And
	 * every register exact at each instruction, for the recipes.
	 */
	VG_(clo_vex_control).guest_chase = False;
	VG_(clo_vex_control).iropt_unroll_thresh = 0;
	VG_(clo_vex_control).iropt_register_updates_default = VexRegUpdAllregsAtEachInsn;
	VG_(clo_px_file_backed) = VexRegUpdAllregsAtEachInsn;
	for (Int i = 0; i < MAX_THREADS; i++)
		exit_code[i] = -1;
	known_grow();
	/* micad tells a launch from an exec by the pid. */
	connect_to_micad(MVG_START);
}

static void
mv_fini(Int exitcode)
{
	(void)exitcode;
	if (!recording)
		return;
	put(MVG_MARK(MVG_M_END, 0));
	flush();
	stop_recording(NULL);
}

static void
mv_pre_clo_init(void)
{
	VG_(details_name)("micadvg");
	VG_(details_version)(NULL);
	VG_(details_description)("micad's instruction recorder");
	VG_(details_copyright_author)("micad's authors");
	VG_(details_bug_reports_to)("micad's issue tracker");
	VG_(details_avg_translation_sizeB)(400);
	VG_(basic_tool_funcs)(mv_post_clo_init, mv_instrument, mv_fini);
	VG_(needs_command_line_options)(mv_process_cmd_line_option, mv_print_usage,
					mv_print_debug_usage);
	VG_(needs_syscall_wrapper)(mv_pre_syscall, mv_post_syscall);
	VG_(track_start_client_code)(mv_start_client_code);
	VG_(track_pre_thread_ll_create)(mv_thread_create);
	VG_(track_pre_thread_first_insn)(mv_thread_first_insn);
	VG_(track_pre_thread_ll_exit)(mv_thread_exit);
	VG_(track_pre_deliver_signal)(mv_signal);
	VG_(track_post_deliver_signal)(mv_signal_return);
	VG_(atfork)(mv_atfork_pre, NULL, mv_atfork_child);
}

VG_DETERMINE_INTERFACE_VERSION(mv_pre_clo_init)
