/*
 * The simulated MGSim counters, Model A (mgsim.h; spec mgsim-counters.md
 * §4).
 *
 * Per event: the instruction fetch goes through the L1I (every line the
 * bytes [pc, pc + len) touch; a REP instruction is fetched once, on its
 * first iteration), each data access through the L1D (every line it
 * touches), L1 misses and write traffic through the L2 if there is one.
 * Counters 7/8 count line requests between the L1s and the level below,
 * 16/17 line transfers between the L2 and memory (with no L2, 7 and 8
 * are reported for them, as on MGSim's flat memories).  The cycle model
 * then says how many core cycles the event took.
 *
 * The slot-cycle integrals 10-12 are kept lazily, as MGSim does: an
 * accumulator and the master cycle of its last update; task starts, ends
 * and waits settle it, and a read adds (live x cycles since) on the fly.
 *
 * Counter 12 from the event stream: a task's `syscall` event comes when
 * the call has returned (event.h), after the events the other tasks ran
 * meanwhile.  So a futex wait is charged when its event arrives, for the
 * whole time since the task last ran: the master cycle at which the
 * stream last switched away from the task (or the task started) up to the
 * start of the syscall's own event.  The model notes that cycle for the
 * task whenever the stream switches from one task to another (one map
 * update per switch, nothing per event of a single-threaded program).
 */
#include "config.h"
#include "mgsim/mgsim.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "u64map.h"

/* ---- the counters' descriptions ---- */

static const struct mgsim_counter_info counter_info[MGSIM_NUM_COUNTERS] = {
	{ "clocks", "MTPERF_CLOCKS", "master cycles", "global", "natural", true,
	  "simulated core cycles x R since tracing began" },
	{ "n_exec_insns", "EXECUTED_INSNS", "instructions", "place", "natural", true,
	  "retired x86 instructions of all traced tasks, a REP string instruction once "
	  "when it completes" },
	{ "n_issued_flops", "ISSUED_FP_INSNS", "instructions", "place",
	  "natural, invented edges", true,
	  "retired FP add/sub/mul/div/sqrt instructions (scalar or packed, SSE/AVX/AVX-512/x87, "
	  "HADD/HSUB/ADDSUB, FMA and DPPS/DPPD count 1), once per instruction" },
	{ "n_compl_core_loads", "COMPLETED_LOAD_INSNS", "instructions", "place",
	  "natural + invented rules", true,
	  "instructions that read data memory (RMW counts 1 load and 1 store; REP: per "
	  "iteration; prefetches, CLFLUSH/CLWB and LEA excluded)" },
	{ "n_compl_core_stores", "COMPLETED_STORE_INSNS", "instructions", "place",
	  "natural + invented rules", true,
	  "instructions that write data memory (same rules as loads)" },
	{ "n_bytes_l1tocore", "CORE_LOADED_BYTES", "bytes", "place", "natural", true,
	  "bytes read by the counted loads (all their read accesses)" },
	{ "n_bytes_coretol1", "CORE_STORED_BYTES", "bytes", "place", "natural", true,
	  "bytes written by the counted stores" },
	{ "n_reqs_l2tol1", "L2_LOADS", "lines", "chip", "natural", true,
	  "lines the L1I and L1D fetched from the level below (read misses, write-allocate "
	  "misses)" },
	{ "n_reqs_l1tol2", "L2_STORES", "lines", "chip", "natural (policy-dependent)", true,
	  "line writes from the L1D to the level below: one per line a store touches "
	  "(write-through) or dirty evictions and flushes (write-back), plus non-temporal "
	  "stores" },
	{ "notused1", "PLACE_SIZE", "cores", "place", "invented mapping", false,
	  "cores in the place: 1 (Model A)" },
	{ "tt_total", "CUMUL_TT_OCCUPANCY", "entry x master cycles", "place", "natural", true,
	  "integral of the live traced tasks over master cycles (64-bit, no 32-bit wrap)" },
	{ "ft_total", "CUMUL_FT_OCCUPANCY", "entry x master cycles", "place", "invented", true,
	  "integral of the live traced processes (families) over master cycles" },
	{ "xq_total", "CUMUL_ALLOC_EX_QSIZE", "request x master cycles", "place", "invented",
	  true,
	  "integral of the tasks blocked in futex wait-class syscalls over master cycles, "
	  "each wait added when it returns (0 for a task alone)" },
	{ "notused2", "UNIX_CTIME", "s", "host", "natural (identical)", false,
	  "host time(), from the one clock reading of the sample" },
	{ "notused3", "UNIX_PACKED_DATE", "packed", "host", "natural (identical algorithm)", false,
	  "UTC date: mday | mon0 << 5 | (year - 1900) << 9" },
	{ "notused4", "UNIX_PACKED_TIME", "packed", "host", "natural (identical algorithm)", false,
	  "UTC time: (usec >> 5) | sec << 15 | min << 21 | hour << 27, clean 32-bit" },
	{ "n_cl_loads_ext", "EXTMEM_LOADS", "lines", "chip", "natural", true,
	  "lines the L2 fetched from memory (demand and write-allocate fills); counter 7 "
	  "with no L2" },
	{ "n_cl_stores_ext", "EXTMEM_STORES", "lines", "chip", "natural", true,
	  "dirty L2 lines written to memory, plus non-temporal store lines; counter 8 with "
	  "no L2" },
	{ "n_cr_threads", "CREATED_THREADS", "threads", "place", "natural", true,
	  "tasks started: the first traced task and every new task" },
	{ "n_cr_families", "CREATED_FAMILIES", "families", "place", "invented", true,
	  "processes created (fork, vfork, clone without CLONE_THREAD); the first process "
	  "is not counted" },
	{ "core_clocks", "CORE_CYCLES", "core cycles", "core", "natural", true,
	  "simulated core cycles since tracing began" },
};

const struct mgsim_counter_info *
mgsim_counter_info(unsigned i)
{
	return i < MGSIM_NUM_COUNTERS ? &counter_info[i] : NULL;
}

int
mgsim_counter_index(const char *name)
{
	for (unsigned i = 0; i < MGSIM_NUM_COUNTERS; i++)
		if (strcmp(name, counter_info[i].name) == 0)
			return (int)i;
	return -1;
}

/* ---- configuration ---- */

void
mgsim_config_default(struct mgsim_config *c)
{
	memset(c, 0, sizeof(*c));
	c->l1i = (struct cache_config){ 32768, 8, 64 };
	c->l1d = (struct cache_config){ 32768, 8, 64 };
	c->l2 = (struct cache_config){ 1048576, 16, 64 };
	c->has_l2 = true;
	c->l1d_policy = MGSIM_WRITE_THROUGH;
	c->core_mhz = 1000;
	c->master_mhz = 1000;
	c->l2_latency = 10;
	c->mem_latency = 100;
	c->thread_entries = 256;
	c->family_entries = 32;
	c->xq_mode = MGSIM_XQ_FUTEX;
	c->mmio_base = MGSIM_DEFAULT_BASE;
	c->alpha_time = false;
	c->cycle_model = "simple";
}

int
mgsim_config_check(const struct mgsim_config *c, char *err, size_t errsz)
{
	char why[128];

	if (cache_config_check(&c->l1i, why, sizeof(why)) < 0) {
		snprintf(err, errsz, "l1i: %s", why);
		return -1;
	}
	if (cache_config_check(&c->l1d, why, sizeof(why)) < 0) {
		snprintf(err, errsz, "l1d: %s", why);
		return -1;
	}
	if (c->has_l2 && cache_config_check(&c->l2, why, sizeof(why)) < 0) {
		snprintf(err, errsz, "l2: %s", why);
		return -1;
	}
	if (c->l1d_policy != MGSIM_WRITE_THROUGH && c->l1d_policy != MGSIM_WRITE_BACK) {
		snprintf(err, errsz, "l1d_policy: unknown policy %d", c->l1d_policy);
		return -1;
	}
	if (!c->core_mhz || !c->master_mhz || c->master_mhz % c->core_mhz) {
		snprintf(err, errsz, "master_mhz (%u) must be a non-zero multiple of core_mhz (%u): "
			 "R = master / core is an integer in MGSim", c->master_mhz, c->core_mhz);
		return -1;
	}
	if (!c->thread_entries || !c->family_entries) {
		snprintf(err, errsz, "thread_entries and family_entries must not be 0");
		return -1;
	}
	if (c->xq_mode != MGSIM_XQ_FUTEX && c->xq_mode != MGSIM_XQ_OFF) {
		snprintf(err, errsz, "xq: unknown mode %d", c->xq_mode);
		return -1;
	}
	if (c->mmio_base > UINT64_MAX - MGSIM_NUM_COUNTERS * MGSIM_WORD_SIZE) {
		snprintf(err, errsz, "base: the counter window would wrap around");
		return -1;
	}
	return 0;
}

/* A number with an optional K/KiB/M/MiB/G/GiB suffix. */
static int
parse_size(const char *s, size_t n, uint64_t *out)
{
	char buf[32], *end;
	unsigned long long v;
	uint64_t mult = 1;

	if (n == 0 || n >= sizeof(buf) || !isdigit((unsigned char)s[0]))
		return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	errno = 0;
	v = strtoull(buf, &end, 0);
	if (errno)
		return -1;
	if (*end == 'k' || *end == 'K')
		mult = 1024;
	else if (*end == 'm' || *end == 'M')
		mult = 1024 * 1024;
	else if (*end == 'g' || *end == 'G')
		mult = 1024 * 1024 * 1024;
	if (mult != 1) {
		end++;
		if (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0)
			end += strlen(end);
	}
	if (*end || v > UINT64_MAX / mult)
		return -1;
	*out = v * mult;
	return 0;
}

static int
parse_u32(const char *s, size_t n, uint32_t *out)
{
	uint64_t v;

	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return -1;
	if (parse_size(s, n, &v) < 0 || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* SIZE:ASSOC:LINE */
static int
parse_geometry(const char *s, size_t n, struct cache_config *c)
{
	const char *c1 = memchr(s, ':', n), *c2;

	if (!c1)
		return -1;
	c2 = memchr(c1 + 1, ':', n - (size_t)(c1 + 1 - s));
	if (!c2)
		return -1;
	if (parse_size(s, (size_t)(c1 - s), &c->size) < 0 ||
	    parse_u32(c1 + 1, (size_t)(c2 - c1 - 1), &c->assoc) < 0 ||
	    parse_u32(c2 + 1, n - (size_t)(c2 + 1 - s), &c->line) < 0)
		return -1;
	return 0;
}

static bool
val_is(const char *v, size_t n, const char *word)
{
	return strlen(word) == n && memcmp(v, word, n) == 0;
}

int
mgsim_config_parse(struct mgsim_config *c, const char *spec, char *err, size_t errsz)
{
	const char *p = spec;

	while (*p) {
		const char *item = p, *comma = strchr(p, ','), *eq;
		size_t len = comma ? (size_t)(comma - p) : strlen(p), klen, vlen;
		const char *v;
		uint64_t u;
		int bad = 0;

		p = comma ? comma + 1 : p + len;
		if (len == 0)
			continue;
		eq = memchr(item, '=', len);
		if (!eq) {
			if (val_is(item, len, "mgsim")) {
				/* programs/config.ini: 64-byte lines, 4 ways x 4
				 * sets per L1, RandomBanked memory (no L2). */
				c->l1i = (struct cache_config){ 1024, 4, 64 };
				c->l1d = (struct cache_config){ 1024, 4, 64 };
				c->has_l2 = false;
				c->l1d_policy = MGSIM_WRITE_THROUGH;
				continue;
			}
			snprintf(err, errsz, "'%.*s': expected KEY=VALUE", (int)len, item);
			return -1;
		}
		klen = (size_t)(eq - item);
		v = eq + 1;
		vlen = len - klen - 1;
#define KEY(k) (klen == strlen(k) && memcmp(item, k, klen) == 0)
		if (KEY("l1i")) {
			bad = parse_geometry(v, vlen, &c->l1i);
		} else if (KEY("l1d")) {
			bad = parse_geometry(v, vlen, &c->l1d);
		} else if (KEY("l2")) {
			if (val_is(v, vlen, "none") || val_is(v, vlen, "0")) {
				c->has_l2 = false;
			} else {
				bad = parse_geometry(v, vlen, &c->l2);
				c->has_l2 = true;
			}
		} else if (KEY("l1d_policy")) {
			if (val_is(v, vlen, "wt") || val_is(v, vlen, "write-through"))
				c->l1d_policy = MGSIM_WRITE_THROUGH;
			else if (val_is(v, vlen, "wb") || val_is(v, vlen, "write-back"))
				c->l1d_policy = MGSIM_WRITE_BACK;
			else
				bad = -1;
		} else if (KEY("core_mhz")) {
			bad = parse_u32(v, vlen, &c->core_mhz);
		} else if (KEY("master_mhz")) {
			bad = parse_u32(v, vlen, &c->master_mhz);
		} else if (KEY("l2_latency")) {
			bad = parse_u32(v, vlen, &c->l2_latency);
		} else if (KEY("mem_latency")) {
			bad = parse_u32(v, vlen, &c->mem_latency);
		} else if (KEY("thread_entries")) {
			bad = parse_u32(v, vlen, &c->thread_entries);
		} else if (KEY("family_entries")) {
			bad = parse_u32(v, vlen, &c->family_entries);
		} else if (KEY("xq")) {
			if (val_is(v, vlen, "futex"))
				c->xq_mode = MGSIM_XQ_FUTEX;
			else if (val_is(v, vlen, "off"))
				c->xq_mode = MGSIM_XQ_OFF;
			else
				bad = -1;
		} else if (KEY("base")) {
			bad = parse_size(v, vlen, &u);
			c->mmio_base = u;
		} else if (KEY("time")) {
			if (val_is(v, vlen, "clean"))
				c->alpha_time = false;
			else if (val_is(v, vlen, "alpha"))
				c->alpha_time = true;
			else
				bad = -1;
		} else {
			snprintf(err, errsz, "unknown setting '%.*s' (known: l1i, l1d, l2, l1d_policy, "
				 "core_mhz, master_mhz, l2_latency, mem_latency, thread_entries, "
				 "family_entries, xq, base, time, mgsim)", (int)klen, item);
			return -1;
		}
#undef KEY
		if (bad) {
			snprintf(err, errsz, "bad value in '%.*s'", (int)len, item);
			return -1;
		}
	}
	return mgsim_config_check(c, err, errsz);
}

int
mgsim_config_json(const struct mgsim_config *c, char *buf, size_t size)
{
	char l2[96];

	if (c->has_l2)
		snprintf(l2, sizeof(l2), "{\"size\":%" PRIu64 ",\"assoc\":%u,\"line\":%u}",
			 c->l2.size, c->l2.assoc, c->l2.line);
	else
		snprintf(l2, sizeof(l2), "null");
	return snprintf(buf, size,
			"{\"model\":\"A\",\"num_counters\":%d,\"word_size\":%d,"
			"\"mmio_base\":%" PRIu64 ","
			"\"l1i\":{\"size\":%" PRIu64 ",\"assoc\":%u,\"line\":%u},"
			"\"l1d\":{\"size\":%" PRIu64 ",\"assoc\":%u,\"line\":%u,\"policy\":\"%s\"},"
			"\"l2\":%s,\"core_mhz\":%u,\"master_mhz\":%u,\"ratio\":%" PRIu64 ","
			"\"cycle_model\":\"%s\",\"l2_latency\":%u,\"mem_latency\":%u,"
			"\"thread_entries\":%u,\"family_entries\":%u,\"xq\":\"%s\",\"time\":\"%s\"}",
			MGSIM_NUM_COUNTERS, MGSIM_WORD_SIZE, c->mmio_base,
			c->l1i.size, c->l1i.assoc, c->l1i.line,
			c->l1d.size, c->l1d.assoc, c->l1d.line,
			c->l1d_policy == MGSIM_WRITE_BACK ? "write-back" : "write-through",
			l2, c->core_mhz, c->master_mhz, mgsim_ratio(c),
			c->cycle_model ? c->cycle_model : "simple", c->l2_latency, c->mem_latency,
			c->thread_entries, c->family_entries,
			c->xq_mode == MGSIM_XQ_OFF ? "off" : "futex",
			c->alpha_time ? "alpha" : "clean");
}

/* ---- instruction classes ---- */

enum mclass {
	MC_NONE = 0,
	MC_FP,			/* counts in 2 */
	MC_FLUSH,		/* CLFLUSH, CLFLUSHOPT: write back and invalidate */
	MC_CLWB,		/* write back, keep */
	MC_NT,			/* non-temporal store */
};

static const char *const fp_exact[] = {
	/* SSE/AVX/AVX-512 add, sub, mul, div, sqrt (also with a 'v'
	 * prefix), FP16 forms included. */
	"addss", "addsd", "addps", "addpd", "addsh", "addph",
	"subss", "subsd", "subps", "subpd", "subsh", "subph",
	"mulss", "mulsd", "mulps", "mulpd", "mulsh", "mulph",
	"divss", "divsd", "divps", "divpd", "divsh", "divph",
	"sqrtss", "sqrtsd", "sqrtps", "sqrtpd", "sqrtsh", "sqrtph",
	"haddps", "haddpd", "hsubps", "hsubpd", "addsubps", "addsubpd",
	"dpps", "dppd", "dpbf16ps",
	NULL
};

static const char *const fp_x87[] = {
	"fadd", "faddp", "fiadd", "fsub", "fsubp", "fisub", "fsubr", "fsubrp", "fisubr",
	"fmul", "fmulp", "fimul", "fdiv", "fdivp", "fidiv", "fdivr", "fdivrp", "fidivr",
	"fsqrt",
	/* 3DNow! arithmetic */
	"pfadd", "pfsub", "pfsubr", "pfmul",
	NULL
};

/* FMA3/FMA4 and the FP16 complex multiply(-add) forms. */
static const char *const fp_prefix[] = {
	"vfmadd", "vfmsub", "vfnmadd", "vfnmsub", "vfcmadd", "vfcmul", "vfmulc",
	"v4fmadd", "v4fnmadd",
	NULL
};

static const char *const nt_stores[] = {
	"movnti", "movntdq", "movntpd", "movntps", "movntq", "movntsd", "movntss",
	"vmovntdq", "vmovntpd", "vmovntps", "maskmovq", "maskmovdqu", "vmaskmovdqu",
	"movdiri", "movdir64b",
	NULL
};

static bool
in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return true;
	return false;
}

static enum mclass
classify_mnemonic(const char *s)
{
	if (in_list(s, fp_exact) || (s[0] == 'v' && in_list(s + 1, fp_exact)) ||
	    in_list(s, fp_x87))
		return MC_FP;
	for (const char *const *p = fp_prefix; *p; p++)
		if (strncmp(s, *p, strlen(*p)) == 0)
			return MC_FP;
	if (strcmp(s, "clflush") == 0 || strcmp(s, "clflushopt") == 0)
		return MC_FLUSH;
	if (strcmp(s, "clwb") == 0)
		return MC_CLWB;
	if (in_list(s, nt_stores))
		return MC_NT;
	return MC_NONE;
}

/* ---- the model ---- */

#define N_MNEMONICS ((unsigned)ZYDIS_MNEMONIC_MAX_VALUE + 1)

/* tasks: tid -> pid (low 32 bits) | TASK_WAITING */
#define TASK_WAITING (1ull << 32)

struct mgsim {
	struct mgsim_config cfg;
	uint64_t ratio;
	struct cache *l1i, *l1d, *l2;
	unsigned l1i_shift, l1d_shift, l2_shift;
	mgsim_cycle_fn cycle_fn;
	void *cycle_arg;
	uint8_t mclass[N_MNEMONICS];

	uint64_t core_cycles, events;
	uint64_t c[MGSIM_NUM_COUNTERS];	/* the plain counts: 1-8, 16-19 */

	uint64_t live_tasks, live_families, waiting, max_live;
	uint64_t tt_acc, ft_acc, xq_acc, last_master;
	uint64_t futex_waits;		/* wait-class syscall events charged */
	bool any_family;
	struct u64map tasks;		/* tid -> pid | TASK_WAITING */
	struct u64map families;		/* pid -> live tasks */
	/* Counter 12 from syscall events: the task of the previous event,
	 * and for each live task the master cycle at which it last stopped
	 * running (another task's event came) or started. */
	bool have_run;
	uint32_t run_tid;
	struct u64map off;		/* tid -> master cycle */

	struct mgsim_event_cost cost;	/* of the event being processed */
};

uint64_t
mgsim_simple_cycles(void *arg, const struct insn_event *ev, const struct mgsim_event_cost *cost)
{
	const struct mgsim_config *c = arg;
	uint64_t misses = (uint64_t)cost->l1i_misses + cost->l1d_misses;

	(void)ev;
	if (!c->has_l2)
		return 1 + misses * c->mem_latency;
	return 1 + misses * c->l2_latency + (uint64_t)cost->mem_fills * c->mem_latency;
}

struct mgsim *
mgsim_new(const struct mgsim_config *cfg, char *err, size_t errsz)
{
	struct mgsim *m;

	if (mgsim_config_check(cfg, err, errsz) < 0)
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m) {
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	m->cfg = *cfg;
	if (!m->cfg.cycle_model)
		m->cfg.cycle_model = "simple";
	m->ratio = mgsim_ratio(cfg);
	m->l1i = cache_new(&cfg->l1i);
	m->l1d = cache_new(&cfg->l1d);
	m->l2 = cfg->has_l2 ? cache_new(&cfg->l2) : NULL;
	if (!m->l1i || !m->l1d || (cfg->has_l2 && !m->l2) ||
	    u64map_init(&m->tasks, 4) < 0 || u64map_init(&m->families, 4) < 0 ||
	    u64map_init(&m->off, 4) < 0) {
		snprintf(err, errsz, "out of memory for the simulated caches");
		mgsim_free(m);
		return NULL;
	}
	m->l1i_shift = cache_line_shift(m->l1i);
	m->l1d_shift = cache_line_shift(m->l1d);
	m->l2_shift = m->l2 ? cache_line_shift(m->l2) : 0;
	m->cycle_fn = mgsim_simple_cycles;
	m->cycle_arg = &m->cfg;
	for (unsigned i = 0; i < N_MNEMONICS; i++) {
		const char *s = ZydisMnemonicGetString((ZydisMnemonic)i);

		m->mclass[i] = s ? (uint8_t)classify_mnemonic(s) : MC_NONE;
	}
	return m;
}

void
mgsim_free(struct mgsim *m)
{
	if (!m)
		return;
	cache_free(m->l1i);
	cache_free(m->l1d);
	cache_free(m->l2);
	if (m->tasks.slots)
		u64map_free(&m->tasks);
	if (m->families.slots)
		u64map_free(&m->families);
	if (m->off.slots)
		u64map_free(&m->off);
	free(m);
}

const struct mgsim_config *
mgsim_get_config(const struct mgsim *m)
{
	return &m->cfg;
}

void
mgsim_set_cycle_model(struct mgsim *m, const char *name, mgsim_cycle_fn fn, void *arg)
{
	if (fn) {
		m->cycle_fn = fn;
		m->cycle_arg = arg;
		m->cfg.cycle_model = name ? name : "custom";
	} else {
		m->cycle_fn = mgsim_simple_cycles;
		m->cycle_arg = &m->cfg;
		m->cfg.cycle_model = "simple";
	}
}

void
mgsim_add_cycles(struct mgsim *m, uint64_t n)
{
	m->core_cycles += n;
}

const struct cache *
mgsim_l1i(const struct mgsim *m)
{
	return m->l1i;
}

const struct cache *
mgsim_l1d(const struct mgsim *m)
{
	return m->l1d;
}

const struct cache *
mgsim_l2(const struct mgsim *m)
{
	return m->l2;
}

/* ---- tasks and the integrals ---- */

static inline uint64_t
master_now(const struct mgsim *m)
{
	return m->core_cycles * m->ratio;
}

static void
settle(struct mgsim *m)
{
	uint64_t now = master_now(m), d = now - m->last_master;

	m->tt_acc += m->live_tasks * d;
	m->ft_acc += m->live_families * d;
	m->xq_acc += m->waiting * d;
	m->last_master = now;
}

static inline uint64_t
task_key(int32_t tid)
{
	return (uint32_t)tid;
}

void
mgsim_task_start(struct mgsim *m, int32_t pid, int32_t tid)
{
	uint64_t *t, *f, *off;
	bool created;

	if (u64map_find(&m->tasks, task_key(tid)))
		mgsim_task_end(m, tid);
	settle(m);
	t = u64map_insert(&m->tasks, task_key(tid), &created);
	f = t ? u64map_insert(&m->families, (uint32_t)pid, &created) : NULL;
	if (!t || !f) {
		/* Out of memory: the task is not tracked (its start still
		 * counts). */
		if (t)
			u64map_remove(&m->tasks, task_key(tid));
		m->c[MGSIM_CR_THREADS]++;
		return;
	}
	*t = (uint32_t)pid;
	/* Its time off the core so far: none (a wait that is its first
	 * event counts from here). */
	off = u64map_insert(&m->off, task_key(tid), &created);
	if (off)
		*off = master_now(m);
	if ((*f)++ == 0) {
		m->live_families++;
		if (m->any_family)
			m->c[MGSIM_CR_FAMILIES]++;
		m->any_family = true;
	}
	m->live_tasks++;
	if (m->live_tasks > m->max_live)
		m->max_live = m->live_tasks;
	m->c[MGSIM_CR_THREADS]++;
}

void
mgsim_task_end(struct mgsim *m, int32_t tid)
{
	uint64_t *t = u64map_find(&m->tasks, task_key(tid)), *f;
	uint32_t pid;

	if (!t)
		return;
	settle(m);
	pid = (uint32_t)*t;
	if (*t & TASK_WAITING)
		m->waiting--;
	u64map_remove(&m->tasks, task_key(tid));
	u64map_remove(&m->off, task_key(tid));
	if (m->have_run && m->run_tid == (uint32_t)tid)
		m->have_run = false;
	m->live_tasks--;
	f = u64map_find(&m->families, pid);
	if (f && --*f == 0) {
		u64map_remove(&m->families, pid);
		m->live_families--;
	}
}

void
mgsim_wait_begin(struct mgsim *m, int32_t tid)
{
	uint64_t *t;

	if (m->cfg.xq_mode == MGSIM_XQ_OFF)
		return;
	t = u64map_find(&m->tasks, task_key(tid));
	if (!t || (*t & TASK_WAITING))
		return;
	settle(m);
	*t |= TASK_WAITING;
	m->waiting++;
}

void
mgsim_wait_end(struct mgsim *m, int32_t tid)
{
	uint64_t *t = u64map_find(&m->tasks, task_key(tid));

	if (!t || !(*t & TASK_WAITING))
		return;
	settle(m);
	*t &= ~TASK_WAITING;
	m->waiting--;
}

/* Linux x86-64 syscall numbers and futex operations (<linux/futex.h>),
 * spelled out so the library does not depend on the build host's
 * headers. */
#define NR_futex		202
#define NR_futex_waitv		449
#define FUTEX_CMD_MASK		0x7f	/* ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME) */
#define FUTEX_WAIT_		0
#define FUTEX_LOCK_PI_		6
#define FUTEX_WAIT_BITSET_	9
#define FUTEX_WAIT_REQUEUE_PI_	11
#define FUTEX_LOCK_PI2_		13

bool
mgsim_futex_waits(uint64_t nr, uint64_t futex_op)
{
	if (nr == NR_futex_waitv)
		return true;
	if (nr != NR_futex)
		return false;
	switch (futex_op & FUTEX_CMD_MASK) {
	case FUTEX_WAIT_:
	case FUTEX_LOCK_PI_:
	case FUTEX_WAIT_BITSET_:
	case FUTEX_WAIT_REQUEUE_PI_:
	case FUTEX_LOCK_PI2_:
		return true;
	}
	return false;
}

/* ---- the memory hierarchy ---- */

/* The last byte of [addr, addr + len), len >= 1, kept below 2^64. */
static inline uint64_t
last_byte(uint64_t addr, uint64_t len)
{
	return len - 1 > UINT64_MAX - addr ? UINT64_MAX : addr + (len - 1);
}

/* Every line (of 1 << shift bytes) that bytes [addr, addr + len) touch. */
#define FOR_LINES(line, addr, len, shift) \
	for (uint64_t line = (addr) >> (shift), line##_end = last_byte(addr, len) >> (shift); \
	     line <= line##_end; line++)

static void
l2_fill(struct mgsim *m, uint64_t line, bool dirty)
{
	uint64_t victim;
	bool vdirty = false;

	if (cache_fill(m->l2, line, dirty, &victim, &vdirty) && vdirty)
		m->c[MGSIM_EXT_STORES]++;
}

/* An L1 line fetch of bytes [addr, addr + len): returns the lines that
 * came from memory. */
static unsigned
l2_read(struct mgsim *m, uint64_t addr, uint64_t len)
{
	unsigned fills = 0;

	if (!m->l2)
		return 1;	/* every L1 miss goes to memory */
	FOR_LINES(line, addr, len, m->l2_shift) {
		if (!cache_access(m->l2, line, false)) {
			m->c[MGSIM_EXT_LOADS]++;
			fills++;
			l2_fill(m, line, false);
		}
	}
	return fills;
}

/* A write of bytes [addr, addr + len) from the L1D into the L2 (write-back
 * allocate; a partial line missing is fetched from memory first). */
static void
l2_write(struct mgsim *m, uint64_t addr, uint64_t len)
{
	if (!m->l2)
		return;
	FOR_LINES(line, addr, len, m->l2_shift) {
		uint64_t lo = line << m->l2_shift, hi = lo + (1ull << m->l2_shift);
		bool full = addr <= lo && addr + len >= hi;

		if (cache_access(m->l2, line, true))
			continue;
		if (!full)
			m->c[MGSIM_EXT_LOADS]++;
		l2_fill(m, line, true);
	}
}

/* A dirty L1D line leaves the L1D (eviction, flush). */
static void
l1d_write_back(struct mgsim *m, uint64_t line)
{
	m->c[MGSIM_L2_STORES]++;
	l2_write(m, line << m->l1d_shift, 1ull << m->l1d_shift);
}

/* Drop or clean the L2's copy of bytes [addr, addr + len), writing dirty
 * lines to memory. */
static void
l2_flush(struct mgsim *m, uint64_t addr, uint64_t len, bool invalidate)
{
	if (!m->l2)
		return;
	FOR_LINES(line, addr, len, m->l2_shift) {
		bool dirty = false;

		if (invalidate)
			cache_invalidate(m->l2, line, &dirty);
		else
			dirty = cache_clean(m->l2, line);
		if (dirty)
			m->c[MGSIM_EXT_STORES]++;
	}
}

/* An L1D miss: fetch the line (clean for a read, dirty for a write
 * allocate), writing back the victim if dirty. */
static void
l1d_fill(struct mgsim *m, uint64_t line, bool dirty)
{
	uint64_t victim;
	bool vdirty = false;

	m->c[MGSIM_L2_LOADS]++;
	m->cost.l1d_misses++;
	m->cost.mem_fills += l2_read(m, line << m->l1d_shift, 1ull << m->l1d_shift);
	if (cache_fill(m->l1d, line, dirty, &victim, &vdirty) && vdirty)
		l1d_write_back(m, victim);
}

static void
fetch(struct mgsim *m, uint64_t pc, unsigned len)
{
	if (len == 0)
		len = 1;
	FOR_LINES(line, pc, len, m->l1i_shift) {
		if (cache_access(m->l1i, line, false))
			continue;
		m->c[MGSIM_L2_LOADS]++;
		m->cost.l1i_misses++;
		m->cost.mem_fills += l2_read(m, line << m->l1i_shift, 1ull << m->l1i_shift);
		cache_fill(m->l1i, line, false, NULL, NULL);
	}
}

static void
data_read(struct mgsim *m, uint64_t addr, uint64_t len)
{
	FOR_LINES(line, addr, len, m->l1d_shift) {
		if (!cache_access(m->l1d, line, false))
			l1d_fill(m, line, false);
	}
}

static void
data_write(struct mgsim *m, uint64_t addr, uint64_t len)
{
	FOR_LINES(line, addr, len, m->l1d_shift) {
		if (m->cfg.l1d_policy == MGSIM_WRITE_BACK) {
			if (!cache_access(m->l1d, line, true))
				l1d_fill(m, line, true);
		} else {
			/* Write-through, no allocate: one line write per
			 * line touched, the L1D copy (if any) updated. */
			uint64_t lo = line << m->l1d_shift, hi = lo + (1ull << m->l1d_shift);
			uint64_t a = addr > lo ? addr : lo, b = addr + len < hi ? addr + len : hi;

			cache_access(m->l1d, line, false);
			m->c[MGSIM_L2_STORES]++;
			l2_write(m, a, b - a);
		}
	}
}

/* A non-temporal store: around the caches (a cached copy is written back
 * if dirty and dropped), one line write per L1 line to the L2 level and,
 * past it, to memory. */
static void
data_write_nt(struct mgsim *m, uint64_t addr, uint64_t len)
{
	FOR_LINES(line, addr, len, m->l1d_shift) {
		bool dirty = false;

		if (cache_invalidate(m->l1d, line, &dirty) && dirty)
			l1d_write_back(m, line);
		m->c[MGSIM_L2_STORES]++;
	}
	if (m->l2) {
		l2_flush(m, addr, len, true);
		FOR_LINES(line, addr, len, m->l2_shift)
			m->c[MGSIM_EXT_STORES]++;
	}
}

/* CLFLUSH/CLFLUSHOPT (invalidate) and CLWB (keep) of the line holding addr. */
static void
cache_op(struct mgsim *m, uint64_t addr, bool invalidate)
{
	uint64_t line = addr >> m->l1d_shift;
	bool dirty = false;

	if (invalidate) {
		cache_invalidate(m->l1i, addr >> m->l1i_shift, NULL);
		cache_invalidate(m->l1d, line, &dirty);
	} else {
		dirty = cache_clean(m->l1d, line);
	}
	if (dirty)
		l1d_write_back(m, line);
	if (m->l2)
		l2_flush(m, addr, 1, invalidate);
}

/*
 * Counter 12 at an event, before its cycles: note when the previous task
 * stopped running if the stream switches tasks here, and charge a futex
 * wait-class syscall for the time its task was off the core.
 */
static void
track_waits(struct mgsim *m, const struct insn_event *ev)
{
	uint64_t now = master_now(m), *t, *off;
	bool switched = !m->have_run || m->run_tid != ev->tid;

	if (switched) {
		if (m->have_run && u64map_find(&m->tasks, task_key((int32_t)m->run_tid))) {
			bool created;

			off = u64map_insert(&m->off, task_key((int32_t)m->run_tid), &created);
			if (off)
				*off = now;
		}
		m->have_run = true;
		m->run_tid = ev->tid;
	}
	/* The previous event was the task's own: nothing ran while it was
	 * in the call (a futex wait that did not block, or no other task). */
	if (!switched || !(ev->flags & EV_SYSCALL) || m->cfg.xq_mode != MGSIM_XQ_FUTEX ||
	    !mgsim_futex_waits(ev->sys.nr, ev->sys.arg[1]))
		return;
	t = u64map_find(&m->tasks, task_key((int32_t)ev->tid));
	off = u64map_find(&m->off, task_key((int32_t)ev->tid));
	if (!t || (*t & TASK_WAITING) || !off || *off > now)
		return;
	/* The integral of this task's membership, all of it in the past:
	 * the lazy accumulator takes it as it is. */
	m->xq_acc += now - *off;
	m->futex_waits++;
}

void
mgsim_event(struct mgsim *m, const struct insn_event *ev)
{
	const struct insn_info *ii = ev->info;
	bool rep = ev->flags & EV_REP;
	unsigned mc = MC_NONE, nread = 0, nwrite = 0;
	uint64_t rbytes = 0, wbytes = 0;

	memset(&m->cost, 0, sizeof(m->cost));
	m->events++;
	if (!m->have_run || m->run_tid != ev->tid || (ev->flags & EV_SYSCALL))
		track_waits(m, ev);
	if (ii && !(ev->flags & EV_INVALID) && ii->mnemonic < N_MNEMONICS)
		mc = m->mclass[ii->mnemonic];

	/* The fetch: once per instruction (a REP's first iteration). */
	if (!rep || (ev->flags & EV_REP_FIRST))
		fetch(m, ev->pc, ii ? ii->len : 1);

	/* Counter 1 (and 2): when the instruction completes; a REP string
	 * instruction completes when RIP moves past it. */
	if (!rep || ev->next_pc != ev->pc) {
		m->c[MGSIM_EXEC_INSNS]++;
		if (mc == MC_FP)
			m->c[MGSIM_ISSUED_FLOPS]++;
	}

	for (unsigned i = 0; i < ev->n_mem; i++) {
		const struct mem_access *a = &ev->mem[i];
		uint64_t len = a->size ? a->size : 1;

		if (a->flags & (MEMF_PHANTOM | MEMF_PREFETCH))
			continue;
		if (mc == MC_FLUSH || mc == MC_CLWB) {
			cache_op(m, a->addr, mc == MC_FLUSH);
			continue;
		}
		if (a->dir == MEM_READ) {
			nread++;
			rbytes += a->size;
			data_read(m, a->addr, len);
		} else {
			nwrite++;
			wbytes += a->size;
			if (mc == MC_NT)
				data_write_nt(m, a->addr, len);
			else
				data_write(m, a->addr, len);
		}
	}
	if (nread) {
		m->c[MGSIM_LOADS]++;
		m->c[MGSIM_LOAD_BYTES] += rbytes;
	}
	if (nwrite) {
		m->c[MGSIM_STORES]++;
		m->c[MGSIM_STORE_BYTES] += wbytes;
	}
	m->core_cycles += m->cycle_fn(m->cycle_arg, ev, &m->cost);
}

/* ---- reading ---- */

void
mgsim_sample(const struct mgsim *m, uint64_t v[MGSIM_NUM_COUNTERS])
{
	uint64_t now = master_now(m), d = now - m->last_master;

	memcpy(v, m->c, sizeof(m->c));
	v[MGSIM_CLOCKS] = now;
	v[MGSIM_CORE_CLOCKS] = m->core_cycles;
	v[MGSIM_PLACE_SIZE] = 1;
	v[MGSIM_TT_TOTAL] = m->tt_acc + m->live_tasks * d;
	v[MGSIM_FT_TOTAL] = m->ft_acc + m->live_families * d;
	v[MGSIM_XQ_TOTAL] = m->xq_acc + m->waiting * d;
	v[MGSIM_UNIX_CTIME] = v[MGSIM_UNIX_DATE] = v[MGSIM_UNIX_TIME] = 0;
	if (!m->l2) {
		v[MGSIM_EXT_LOADS] = v[MGSIM_L2_LOADS];
		v[MGSIM_EXT_STORES] = v[MGSIM_L2_STORES];
	}
}

void
mgsim_apply_clock(uint64_t v[MGSIM_NUM_COUNTERS], const struct timespec *now, bool alpha_time)
{
	v[MGSIM_UNIX_CTIME] = (uint64_t)now->tv_sec;
	v[MGSIM_UNIX_DATE] = mgsim_pack_date(now->tv_sec);
	v[MGSIM_UNIX_TIME] = mgsim_pack_time(now->tv_sec, now->tv_nsec / 1000, alpha_time);
}

void
mgsim_read(const struct mgsim *m, const struct timespec *now, uint64_t v[MGSIM_NUM_COUNTERS])
{
	mgsim_sample(m, v);
	mgsim_apply_clock(v, now, m->cfg.alpha_time);
}

void
mgsim_get_status(const struct mgsim *m, struct mgsim_status *st)
{
	st->live_tasks = m->live_tasks;
	st->live_families = m->live_families;
	st->waiting_tasks = m->waiting;
	st->max_live_tasks = m->max_live;
	st->core_cycles = m->core_cycles;
	st->events = m->events;
	st->futex_waits = m->futex_waits;
}

/* ---- packed date and time ---- */

uint64_t
mgsim_pack_date(time_t t)
{
	struct tm tm;

	if (!gmtime_r(&t, &tm))
		return 0;
	return (uint64_t)(uint32_t)tm.tm_mday | (uint64_t)(uint32_t)tm.tm_mon << 5 |
	       (uint64_t)(int64_t)tm.tm_year << 9;
}

uint64_t
mgsim_pack_time(time_t t, long usec, bool alpha)
{
	struct tm tm;
	uint32_t v;

	if (!gmtime_r(&t, &tm))
		return 0;
	v = ((uint32_t)usec >> 5 & 0x7fff) | (uint32_t)tm.tm_sec << 15 |
	    (uint32_t)tm.tm_min << 21 | (uint32_t)tm.tm_hour << 27;
	/* 64-bit MT-Alpha MGSim ORs int-typed fields into its word: with
	 * the hour >= 16 the int is negative and sign-extends. */
	if (alpha && tm.tm_hour >= 16)
		return 0xffffffff00000000ull | v;
	return v;
}

/* ---- MMIO ---- */

enum mgsim_mmio_status
mgsim_mmio_decode(uint64_t base, uint64_t addr, uint64_t size, unsigned *index,
		  const char **why)
{
	const uint64_t window = MGSIM_NUM_COUNTERS * MGSIM_WORD_SIZE;
	const char *dummy;
	uint64_t off;

	if (!why)
		why = &dummy;
	if (base == 0) {
		*why = "the performance counters are not mapped (base 0)";
		return MGSIM_MMIO_NOT_FOUND;
	}
	/* The match unit routes an access to the device only if all of it
	 * lies in the window. */
	if (addr < base || (off = addr - base) >= window || size > window - off) {
		*why = "not a performance counter address";
		return MGSIM_MMIO_NOT_FOUND;
	}
	if (size != MGSIM_WORD_SIZE) {
		*why = "invalid read size: the counters are read as 8-byte words";
		return MGSIM_MMIO_BAD;
	}
	if (off % MGSIM_WORD_SIZE) {
		*why = "misaligned read: the address must be base + a multiple of 8";
		return MGSIM_MMIO_BAD;
	}
	if (off / MGSIM_WORD_SIZE >= MGSIM_NUM_COUNTERS) {
		/* Cannot happen through the window (it is 21 words), as in
		 * MGSim; kept as the device's own check. */
		*why = "invalid counter index";
		return MGSIM_MMIO_BAD;
	}
	if (index)
		*index = (unsigned)(off / MGSIM_WORD_SIZE);
	*why = "ok";
	return MGSIM_MMIO_OK;
}

/* ---- derived columns ---- */

void
mgsim_derive(const uint64_t before[MGSIM_NUM_COUNTERS], const uint64_t after[MGSIM_NUM_COUNTERS],
	     const struct mgsim_config *c, struct mgsim_derived *out)
{
	double d0 = (double)(after[MGSIM_CLOCKS] - before[MGSIM_CLOCKS]);
	double c9 = (double)after[MGSIM_PLACE_SIZE];
	double r = (double)c->master_mhz / (double)c->core_mhz;

	if (d0 == 0 || c9 == 0) {
		out->pl_eff = out->tt_occp = out->ft_occp = out->xq_avg = NAN;
		return;
	}
	out->pl_eff = (double)(after[MGSIM_EXEC_INSNS] - before[MGSIM_EXEC_INSNS]) / c9 * r / d0;
	out->tt_occp = (double)(after[MGSIM_TT_TOTAL] - before[MGSIM_TT_TOTAL]) / c9 /
		       c->thread_entries / d0;
	out->ft_occp = (double)(after[MGSIM_FT_TOTAL] - before[MGSIM_FT_TOTAL]) / c9 /
		       c->family_entries / d0;
	out->xq_avg = (double)(after[MGSIM_XQ_TOTAL] - before[MGSIM_XQ_TOTAL]) / c9 / d0;
}

/* ---- monitoring variables ---- */

void
mgsim_monitor_read_one(struct mgsim_monitor *mon, unsigned index)
{
	if (index >= MGSIM_NUM_COUNTERS)
		return;
	__atomic_add_fetch(index == MGSIM_CLOCKS ? &mon->cycle_sample_ops : &mon->other_sample_ops,
			   1, __ATOMIC_RELAXED);
}

void
mgsim_monitor_read_all(struct mgsim_monitor *mon)
{
	__atomic_add_fetch(&mon->cycle_sample_ops, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&mon->other_sample_ops, MGSIM_NUM_COUNTERS - 1, __ATOMIC_RELAXED);
}

void
mgsim_monitor_get(const struct mgsim_monitor *mon, uint64_t *cycle_ops, uint64_t *other_ops)
{
	*cycle_ops = __atomic_load_n(&mon->cycle_sample_ops, __ATOMIC_RELAXED);
	*other_ops = __atomic_load_n(&mon->other_sample_ops, __ATOMIC_RELAXED);
}

/* ---- invariants ---- */

int
mgsim_check(const uint64_t *before, const uint64_t after[MGSIM_NUM_COUNTERS],
	    const struct mgsim_config *c, uint64_t max_live, char *err, size_t errsz)
{
	int bad = 0;
	uint64_t r = mgsim_ratio(c);

#define FAIL(...) do { if (!bad++) snprintf(err, errsz, __VA_ARGS__); } while (0)
	if (err && errsz)
		err[0] = 0;
	if (after[MGSIM_CLOCKS] < after[MGSIM_CORE_CLOCKS])
		FAIL("counter 0 (%" PRIu64 ") < counter 20 (%" PRIu64 ")",
		     after[MGSIM_CLOCKS], after[MGSIM_CORE_CLOCKS]);
	if (after[MGSIM_CLOCKS] != after[MGSIM_CORE_CLOCKS] * r)
		FAIL("counter 0 (%" PRIu64 ") != counter 20 x R (%" PRIu64 " x %" PRIu64 ")",
		     after[MGSIM_CLOCKS], after[MGSIM_CORE_CLOCKS], r);
	if (!c->has_l2 && after[MGSIM_EXT_LOADS] != after[MGSIM_L2_LOADS])
		FAIL("no L2 but counter 16 (%" PRIu64 ") != counter 7 (%" PRIu64 ")",
		     after[MGSIM_EXT_LOADS], after[MGSIM_L2_LOADS]);
	if (!c->has_l2 && after[MGSIM_EXT_STORES] != after[MGSIM_L2_STORES])
		FAIL("no L2 but counter 17 (%" PRIu64 ") != counter 8 (%" PRIu64 ")",
		     after[MGSIM_EXT_STORES], after[MGSIM_L2_STORES]);
	if (after[MGSIM_PLACE_SIZE] != 1)
		FAIL("counter 9 (%" PRIu64 ") != 1 in Model A", after[MGSIM_PLACE_SIZE]);
	if (before) {
		uint64_t d0 = after[MGSIM_CLOCKS] - before[MGSIM_CLOCKS];

		for (unsigned i = 0; i < MGSIM_NUM_COUNTERS; i++)
			if (counter_info[i].cumulative && after[i] < before[i])
				FAIL("counter %u (%s) went down: %" PRIu64 " -> %" PRIu64, i,
				     counter_info[i].name, before[i], after[i]);
		if (after[MGSIM_CLOCKS] >= before[MGSIM_CLOCKS]) {
			if (after[MGSIM_TT_TOTAL] - before[MGSIM_TT_TOTAL] > max_live * d0)
				FAIL("counter 10 grew by %" PRIu64 " > %" PRIu64 " live x %" PRIu64
				     " cycles", after[MGSIM_TT_TOTAL] - before[MGSIM_TT_TOTAL],
				     max_live, d0);
			if (after[MGSIM_FT_TOTAL] - before[MGSIM_FT_TOTAL] > max_live * d0)
				FAIL("counter 11 grew by %" PRIu64 " > %" PRIu64 " live x %" PRIu64
				     " cycles", after[MGSIM_FT_TOTAL] - before[MGSIM_FT_TOTAL],
				     max_live, d0);
		}
	}
	/* Counter 12 is charged when a wait ends, for all of it: no bound
	 * per interval, but over the run at most every task but the one
	 * running waits (a task alone: 0). */
	if (after[MGSIM_XQ_TOTAL] > (max_live ? max_live - 1 : 0) * after[MGSIM_CLOCKS])
		FAIL("counter 12 (%" PRIu64 ") > (%" PRIu64 " live - 1) x counter 0 (%" PRIu64 ")",
		     after[MGSIM_XQ_TOTAL], max_live, after[MGSIM_CLOCKS]);
#undef FAIL
	return bad;
}
