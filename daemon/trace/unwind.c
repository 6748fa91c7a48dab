/*
 * libunwind remote unwinding of sampled stacks (unwind.h).
 *
 * One libunwind address space per process, with accessors over the
 * sample being unwound: registers from the sample, memory from the stack
 * copy when the address falls in it, else from the ELF file that a
 * mapping loads there (the unwind tables; never the process's live
 * memory, which has moved on since the sample).  libunwind caches what it
 * parsed per address space (UNW_CACHE_GLOBAL); the cache is flushed when
 * the process's mappings change.
 */
#include "config.h"
#include "trace/unwind.h"

#include <libunwind.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Not in libunwind's headers, exported by its remote library (perf
 * declares it the same way). */
extern int UNW_OBJ(dwarf_search_unwind_table)(unw_addr_space_t as, unw_word_t ip,
					      unw_dyn_info_t *di, unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);
#define dwarf_search_unwind_table UNW_OBJ(dwarf_search_unwind_table)

struct uw_proc {
	unw_addr_space_t as;
	uint64_t generation;		/* of the mappings the cache was filled with */
};

/* The sample being unwound (libunwind's arg). */
struct uw_sample {
	struct symbols *s;
	struct sym_proc *p;
	const uint64_t *regs;
	const uint8_t *stack;
	size_t size;
	uint64_t sp;
};

static int
find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi, int need_unwind_info,
	       void *arg)
{
	struct uw_sample *u = arg;
	struct sym_map *m = sym_proc_find(u->s, u->p, ip);
	uint64_t hdr, table, count;
	unw_dyn_info_t di;

	if (!m || !sym_map_eh_frame(m, &hdr, &table, &count))
		return -UNW_ENOINFO;
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = m->start;
	di.end_ip = m->end;
	/* .eh_frame_hdr's table entries are offsets from the header
	 * (datarel): segbase is its address. */
	di.u.rti.segbase = hdr;
	di.u.rti.table_data = table;
	di.u.rti.table_len = count * 2 * sizeof(int32_t) / sizeof(unw_word_t);
	return dwarf_search_unwind_table(as, ip, &di, pi, need_unwind_info, arg);
}

static void
put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	/* dwarf_search_unwind_table()'s info is libunwind's to free. */
	(void)as;
	(void)pi;
	(void)arg;
}

static int
get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *dil_addr, void *arg)
{
	(void)as;
	(void)dil_addr;
	(void)arg;
	return -UNW_ENOINFO;	/* no JIT registration to read */
}

static int
access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *valp, int write, void *arg)
{
	struct uw_sample *u = arg;

	(void)as;
	if (write)
		return -UNW_EINVAL;
	if (addr >= u->sp && addr - u->sp <= u->size &&
	    u->size - (addr - u->sp) >= sizeof(*valp)) {
		memcpy(valp, u->stack + (addr - u->sp), sizeof(*valp));
		return 0;
	}
	if (sym_proc_read_file(u->p, addr, valp, sizeof(*valp)))
		return 0;
	return -UNW_EINVAL;
}

/* libunwind's x86-64 register numbers in perf's sample order. */
static int
perf_reg(unw_regnum_t r)
{
	static const int map[] = {
		[UNW_X86_64_RAX] = PREG_AX, [UNW_X86_64_RDX] = PREG_DX,
		[UNW_X86_64_RCX] = PREG_CX, [UNW_X86_64_RBX] = PREG_BX,
		[UNW_X86_64_RSI] = PREG_SI, [UNW_X86_64_RDI] = PREG_DI,
		[UNW_X86_64_RBP] = PREG_BP, [UNW_X86_64_RSP] = PREG_SP,
		[UNW_X86_64_R8] = PREG_R8, [UNW_X86_64_R9] = PREG_R9,
		[UNW_X86_64_R10] = PREG_R10, [UNW_X86_64_R11] = PREG_R11,
		[UNW_X86_64_R12] = PREG_R12, [UNW_X86_64_R13] = PREG_R13,
		[UNW_X86_64_R14] = PREG_R14, [UNW_X86_64_R15] = PREG_R15,
		[UNW_X86_64_RIP] = PREG_IP,
	};

	return r >= 0 && (size_t)r < sizeof(map) / sizeof(map[0]) ? map[r] : -1;
}

static int
access_reg(unw_addr_space_t as, unw_regnum_t regnum, unw_word_t *valp, int write, void *arg)
{
	struct uw_sample *u = arg;
	int r = perf_reg(regnum);

	(void)as;
	if (write || r < 0)
		return -UNW_EBADREG;
	*valp = u->regs[r];
	return 0;
}

static int
access_fpreg(unw_addr_space_t as, unw_regnum_t num, unw_fpreg_t *val, int write, void *arg)
{
	(void)as;
	(void)num;
	(void)val;
	(void)write;
	(void)arg;
	return -UNW_EBADREG;	/* not sampled */
}

static int
resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	(void)as;
	(void)c;
	(void)arg;
	return -UNW_EINVAL;	/* a sample is never resumed */
}

static int
get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf, size_t len, unw_word_t *off,
	      void *arg)
{
	(void)as;
	(void)addr;
	(void)buf;
	(void)len;
	(void)off;
	(void)arg;
	return -UNW_ENOINFO;	/* names come from symbols.h */
}

static unw_accessors_t accessors = {
	.find_proc_info = find_proc_info,
	.put_unwind_info = put_unwind_info,
	.get_dyn_info_list_addr = get_dyn_info_list_addr,
	.access_mem = access_mem,
	.access_reg = access_reg,
	.access_fpreg = access_fpreg,
	.resume = resume,
	.get_proc_name = get_proc_name,
};

static void
uw_proc_free(void *arg)
{
	struct uw_proc *up = arg;

	unw_destroy_addr_space(up->as);
	free(up);
}

static struct uw_proc *
uw_proc_get(struct sym_proc *p)
{
	struct uw_proc *up = p->unwind;

	if (!up) {
		unw_addr_space_t as = unw_create_addr_space(&accessors, 0);

		if (!as)
			return NULL;
		unw_set_caching_policy(as, UNW_CACHE_GLOBAL);
		up = xcalloc(1, sizeof(*up));
		up->as = as;
		up->generation = p->generation;
		p->unwind = up;
		p->unwind_free = uw_proc_free;
	} else if (up->generation != p->generation) {
		unw_flush_cache(up->as, 0, 0);
		up->generation = p->generation;
	}
	return up;
}

int
unwind_stack(struct symbols *s, struct sym_proc *p, const uint64_t regs[PREG_COUNT],
	     const uint8_t *stack, size_t stack_size, uint64_t *ips, bool *caller, int max,
	     bool *truncated)
{
	struct uw_sample u = { s, p, regs, stack, stack_size, regs[PREG_SP] };
	struct uw_proc *up;
	unw_cursor_t c;
	int n = 1, r;

	ips[0] = regs[PREG_IP];
	caller[0] = false;
	*truncated = false;
	up = uw_proc_get(p);
	if (!up || unw_init_remote(&c, up->as, &u) < 0) {
		*truncated = true;
		return 1;
	}
	while ((r = unw_step(&c)) > 0) {
		unw_word_t ip;

		if (n == max) {
			*truncated = true;
			break;
		}
		if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0 || ip == 0)
			break;
		ips[n] = ip;
		/* A signal frame's IP is where the signal came, exact;
		 * others are return addresses (perf's rule). */
		caller[n] = unw_is_signal_frame(&c) <= 0;
		n++;
	}
	if (r < 0)
		*truncated = true;
	return n;
}
