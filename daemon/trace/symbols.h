/*
 * What an address of a traced process is: the mapping it falls in (from
 * /proc/PID/maps, then kept up to date by the sampler's PERF_RECORD_MMAP2
 * records, so libraries loaded later resolve), the ELF file behind it (the
 * executable, a shared library, or the vDSO read from the process's
 * memory), and the function symbol there (.symtab, else .dynsym; C++ names
 * demangled).  Also what the unwinder needs of each file: its
 * .eh_frame_hdr and its bytes by address.
 *
 * This runs in the tracer's process (the producer), which may read the
 * target's files: the consumer gets only the resolved strings.  Files are
 * parsed defensively (every offset checked): a target's owner controls
 * them.
 */
#ifndef MICAD_SYMBOLS_H
#define MICAD_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct elf_image;

struct sym_map {
	uint64_t start, end, pgoff;
	uint64_t bias;			/* runtime address = ELF vaddr + bias */
	bool exec;
	char *name;			/* path, "[vdso]", "[heap]"...; NULL: anonymous */
	struct elf_image *img;		/* NULL: no ELF file could be read */
	uint32_t name_id;		/* the caller's string id for name (0: none yet) */
};

struct sym_proc {
	pid_t pid;
	struct sym_map *maps;		/* sorted by start, disjoint */
	size_t n_maps, cap_maps;
	uint64_t maps_read_ns;		/* when /proc/PID/maps was last read */
	uint64_t generation;		/* bumped when the mappings change */
	void *unwind;			/* the unwinder's state (unwind.h), or NULL */
	void (*unwind_free)(void *);
	struct sym_proc *next;
};

struct symbols;

struct symbols *symbols_new(void);
void symbols_free(struct symbols *s);

/* The process's state, created on first use from /proc/PID/maps. */
struct sym_proc *symbols_proc(struct symbols *s, pid_t pid);
/* Forget a process (it exited). */
void symbols_proc_del(struct symbols *s, pid_t pid);

/* The process exec'd: its mappings are gone (the new image's come as
 * mmap records). */
void sym_proc_exec(struct sym_proc *p);

/* A new mapping (an mmap record): replaces what it overlaps.  ino 0: not
 * known (no check that the file is still the one mapped). */
void sym_proc_mmap(struct symbols *s, struct sym_proc *p, uint64_t start, uint64_t len,
		   uint64_t pgoff, bool exec, uint64_t ino, const char *name);

/* The mapping that holds addr; on a miss, /proc/PID/maps is read again
 * (at most every 100 ms) in case a mapping was not reported.  NULL: none. */
struct sym_map *sym_proc_find(struct symbols *s, struct sym_proc *p, uint64_t addr);

struct sym_lookup {
	struct sym_map *map;		/* NULL: no mapping */
	const char *symbol;		/* demangled; NULL: no symbol */
	uint32_t *symbol_id;		/* the caller's string id cache for symbol */
	uint64_t offset;		/* from the symbol's start, else the ELF vaddr */
};

/*
 * Resolve addr of process p.  caller_frame: addr is a return address, so
 * the call instruction before it names the function (perf does the same);
 * the offset is still addr's.
 */
void sym_resolve(struct symbols *s, struct sym_proc *p, uint64_t addr, bool caller_frame,
		 struct sym_lookup *out);

/* For the unwinder. */

/* The .eh_frame_hdr of the file of map m (PT_GNU_EH_FRAME), in runtime
 * addresses: false if it has none, or not in the form libunwind's binary
 * search takes (a table of datarel sdata4 pairs). */
bool sym_map_eh_frame(const struct sym_map *m, uint64_t *hdr_addr, uint64_t *table_addr,
		      uint64_t *fde_count);

/* Read n bytes at runtime address addr from the file of a mapping of p
 * that loads it (the unwind tables' bytes, never the process's memory):
 * false if no loaded file holds all of them. */
bool sym_proc_read_file(struct sym_proc *p, uint64_t addr, void *buf, size_t n);

/* Files read, and those that could not be (statistics). */
void symbols_counts(const struct symbols *s, unsigned *images, unsigned *failed);

#endif /* MICAD_SYMBOLS_H */
