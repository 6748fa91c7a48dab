/*
 * Mappings, ELF files and their symbols (symbols.h).
 *
 * A file is read once (keyed by device and inode, the vDSO by its bytes)
 * and mapped whole, read-only: symbol names point into it, and the
 * unwinder reads its .eh_frame through it.
 */
#include "config.h"
#include "trace/symbols.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

/* libstdc++'s demangler (extern "C"): a malloc'd name, or NULL. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

struct elf_sym {
	uint64_t addr, size;
	const char *name;		/* into the image */
	char *demangled;		/* malloc'd, once asked; NULL: not a C++ name */
	bool demangle_tried;
	uint32_t id;			/* the caller's string id */
};

struct elf_load {
	uint64_t vaddr, memsz, offset, filesz;
};

struct elf_image {
	dev_t dev;
	ino_t ino;
	uint64_t content_hash;		/* vDSO images: FNV-1a of the bytes */
	const uint8_t *data;
	size_t size;
	bool mapped;			/* data is an mmap (else malloc'd) */
	struct elf_load *loads;
	size_t n_loads;
	uint64_t vmin, vmax;		/* the loads' span */
	uint64_t eh_hdr_vaddr;		/* PT_GNU_EH_FRAME; 0: none */
	uint64_t eh_table_vaddr, eh_fde_count;
	bool eh_ok;
	struct elf_sym *syms;		/* sorted by addr */
	size_t n_syms;
	struct elf_image *next;
};

struct symbols {
	struct elf_image *images;
	struct sym_proc *procs;
	unsigned n_images, n_failed;
};

struct symbols *
symbols_new(void)
{
	return xcalloc(1, sizeof(struct symbols));
}

static void
image_free(struct elf_image *img)
{
	for (size_t i = 0; i < img->n_syms; i++)
		free(img->syms[i].demangled);
	free(img->syms);
	free(img->loads);
	if (img->mapped)
		munmap((void *)img->data, img->size);
	else
		free((void *)img->data);
	free(img);
}

static void
maps_clear(struct sym_proc *p)
{
	for (size_t i = 0; i < p->n_maps; i++)
		free(p->maps[i].name);
	p->n_maps = 0;
	p->generation++;
}

static void
proc_free(struct sym_proc *p)
{
	maps_clear(p);
	free(p->maps);
	if (p->unwind && p->unwind_free)
		p->unwind_free(p->unwind);
	free(p);
}

void
symbols_free(struct symbols *s)
{
	if (!s)
		return;
	for (struct sym_proc *p = s->procs, *n; p; p = n) {
		n = p->next;
		proc_free(p);
	}
	for (struct elf_image *i = s->images, *n; i; i = n) {
		n = i->next;
		image_free(i);
	}
	free(s);
}

void
symbols_counts(const struct symbols *s, unsigned *images, unsigned *failed)
{
	*images = s->n_images;
	*failed = s->n_failed;
}

/* ---- ELF ---- */

static bool
in_bounds(const struct elf_image *img, uint64_t off, uint64_t len)
{
	return off <= img->size && len <= img->size - off;
}

static int
cmp_sym(const void *a, const void *b)
{
	const struct elf_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Sized symbols first: they are kept when addresses repeat. */
	return (x->size == 0) - (y->size == 0);
}

/* Function symbols of one symbol table section (and its string table). */
static void
read_symtab(struct elf_image *img, const Elf64_Shdr *sh, const Elf64_Shdr *shdrs, size_t shnum,
	    struct elf_sym **syms, size_t *n, size_t *cap)
{
	const Elf64_Shdr *str;

	if (sh->sh_entsize != sizeof(Elf64_Sym) || sh->sh_link >= shnum ||
	    !in_bounds(img, sh->sh_offset, sh->sh_size))
		return;
	str = &shdrs[sh->sh_link];
	if (!in_bounds(img, str->sh_offset, str->sh_size) || str->sh_size == 0 ||
	    img->data[str->sh_offset + str->sh_size - 1] != '\0')
		return;
	for (uint64_t k = 0; k < sh->sh_size / sizeof(Elf64_Sym); k++) {
		Elf64_Sym sym;
		int type;

		memcpy(&sym, img->data + sh->sh_offset + k * sizeof(sym), sizeof(sym));
		type = ELF64_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
		    sym.st_value == 0 || sym.st_name >= str->sh_size)
			continue;
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 256;
			*syms = xreallocarray(*syms, *cap, sizeof(**syms));
		}
		(*syms)[(*n)++] = (struct elf_sym){
			.addr = sym.st_value, .size = sym.st_size,
			.name = (const char *)img->data + str->sh_offset + sym.st_name,
		};
	}
}

/* .eh_frame_hdr: version 1, eh_frame_ptr_enc, fde_count_enc, table_enc,
 * then the encoded eh_frame pointer and FDE count, then the sorted table.
 * libunwind's search takes only a table of DW_EH_PE_datarel|sdata4
 * pairs (0x3b), what binutils and lld write. */
static void
read_eh_frame_hdr(struct elf_image *img, const Elf64_Phdr *ph)
{
	const uint8_t *h;
	size_t pos = 4;
	uint8_t enc[2];
	uint64_t count = 0;

	if (!in_bounds(img, ph->p_offset, ph->p_filesz) || ph->p_filesz < 4)
		return;
	h = img->data + ph->p_offset;
	if (h[0] != 1 || h[3] != 0x3b)
		return;
	enc[0] = h[1];
	enc[1] = h[2];
	for (int i = 0; i < 2; i++) {
		size_t sz;

		switch (enc[i] & 0x0f) {
		case 0x02: case 0x0a: sz = 2; break;
		case 0x03: case 0x0b: sz = 4; break;
		case 0x04: case 0x0c: sz = 8; break;
		default: return;	/* uleb128 and the like: not in practice */
		}
		if (pos + sz > ph->p_filesz)
			return;
		if (i == 1) {
			uint64_t v = 0;

			memcpy(&v, h + pos, sz);	/* little-endian */
			count = v;
		}
		pos += sz;
	}
	if (count > (ph->p_filesz - pos) / 8)
		return;
	img->eh_hdr_vaddr = ph->p_vaddr;
	img->eh_table_vaddr = ph->p_vaddr + pos;
	img->eh_fde_count = count;
	img->eh_ok = true;
}

/* Parse the ELF headers of img->data: loads, eh_frame_hdr, symbols.
 * false: not a 64-bit x86-64 ELF file we can read. */
static bool
image_parse(struct elf_image *img)
{
	Elf64_Ehdr eh;
	struct elf_sym *syms = NULL;
	size_t n = 0, cap = 0;

	if (img->size < sizeof(eh))
		return false;
	memcpy(&eh, img->data, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_machine != EM_X86_64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    !in_bounds(img, eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr)))
		return false;
	img->vmin = UINT64_MAX;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		memcpy(&ph, img->data + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_LOAD) {
			img->loads = xreallocarray(img->loads, img->n_loads + 1, sizeof(*img->loads));
			img->loads[img->n_loads++] = (struct elf_load){ ph.p_vaddr, ph.p_memsz,
									ph.p_offset, ph.p_filesz };
			if (ph.p_vaddr < img->vmin)
				img->vmin = ph.p_vaddr;
			if (ph.p_vaddr + ph.p_memsz > img->vmax)
				img->vmax = ph.p_vaddr + ph.p_memsz;
		} else if (ph.p_type == PT_GNU_EH_FRAME) {
			read_eh_frame_hdr(img, &ph);
		}
	}
	if (!img->n_loads)
		return false;
	if (eh.e_shentsize == sizeof(Elf64_Shdr) && eh.e_shnum &&
	    in_bounds(img, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr))) {
		Elf64_Shdr *sh = xcalloc(eh.e_shnum, sizeof(*sh));
		bool have_symtab = false;

		memcpy(sh, img->data + eh.e_shoff, (size_t)eh.e_shnum * sizeof(*sh));
		for (unsigned i = 0; i < eh.e_shnum; i++)
			if (sh[i].sh_type == SHT_SYMTAB) {
				read_symtab(img, &sh[i], sh, eh.e_shnum, &syms, &n, &cap);
				have_symtab = true;
			}
		/* A stripped file keeps its exported functions only. */
		if (!have_symtab)
			for (unsigned i = 0; i < eh.e_shnum; i++)
				if (sh[i].sh_type == SHT_DYNSYM)
					read_symtab(img, &sh[i], sh, eh.e_shnum, &syms, &n, &cap);
		free(sh);
	}
	if (n) {
		size_t k = 0;

		qsort(syms, n, sizeof(*syms), cmp_sym);
		for (size_t i = 0; i < n; i++)
			if (k == 0 || syms[i].addr != syms[k - 1].addr)
				syms[k++] = syms[i];
		n = k;
		/* An unsized symbol (hand-written assembly) reaches the next
		 * one, as perf's symbols__fixup_end() makes it. */
		for (size_t i = 0; i < n; i++)
			if (syms[i].size == 0)
				syms[i].size = i + 1 < n ? syms[i + 1].addr - syms[i].addr
							: img->vmax > syms[i].addr ? img->vmax - syms[i].addr : 1;
	}
	img->syms = syms;
	img->n_syms = n;
	return true;
}

/* The image of a file (by path, as the process sees it), or NULL.  ino
 * (when known) must match: a file replaced since it was mapped has other
 * symbols. */
static struct elf_image *
image_get_file(struct symbols *s, pid_t pid, const char *path, uint64_t ino)
{
	char proc_path[PATH_MAX + 64];
	struct elf_image *img;
	struct stat st;
	void *data;
	int fd;

	/* Through the process's root: its mount namespace, its chroot. */
	snprintf(proc_path, sizeof(proc_path), "/proc/%d/root%s", (int)pid, path);
	fd = open(proc_path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0 ||
	    (ino && st.st_ino != ino)) {
		close(fd);
		return NULL;
	}
	for (img = s->images; img; img = img->next)
		if (img->mapped && img->dev == st.st_dev && img->ino == st.st_ino) {
			close(fd);
			return img;
		}
	data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (data == MAP_FAILED)
		return NULL;
	img = xcalloc(1, sizeof(*img));
	img->dev = st.st_dev;
	img->ino = st.st_ino;
	img->data = data;
	img->size = (size_t)st.st_size;
	img->mapped = true;
	if (!image_parse(img)) {
		image_free(img);
		s->n_failed++;
		return NULL;
	}
	img->next = s->images;
	s->images = img;
	s->n_images++;
	return img;
}

/* The vDSO's image, read from the process's memory (it is no file). */
static struct elf_image *
image_get_vdso(struct symbols *s, pid_t pid, uint64_t start, uint64_t end)
{
	size_t size = (size_t)(end - start);
	struct iovec local, remote;
	struct elf_image *img;
	uint64_t h = 1469598103934665603ULL;
	uint8_t *buf;

	if (end <= start || size > (1u << 20))
		return NULL;
	buf = xmalloc(size);
	local = (struct iovec){ buf, size };
	remote = (struct iovec){ (void *)(uintptr_t)start, size };
	if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != (ssize_t)size) {
		char path[64];
		int fd;
		ssize_t r = -1;

		snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			r = pread(fd, buf, size, (off_t)start);
			close(fd);
		}
		if (r != (ssize_t)size) {
			free(buf);
			return NULL;
		}
	}
	for (size_t i = 0; i < size; i++)
		h = (h ^ buf[i]) * 1099511628211ULL;
	for (img = s->images; img; img = img->next)
		if (!img->mapped && img->content_hash == h && img->size == size &&
		    memcmp(img->data, buf, size) == 0) {
			free(buf);
			return img;
		}
	img = xcalloc(1, sizeof(*img));
	img->content_hash = h;
	img->data = buf;
	img->size = size;
	if (!image_parse(img)) {
		image_free(img);
		s->n_failed++;
		return NULL;
	}
	img->next = s->images;
	s->images = img;
	s->n_images++;
	return img;
}

/* The ELF vaddr of file offset off, or false if no load holds it. */
static bool
image_offset_vaddr(const struct elf_image *img, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < img->n_loads; i++) {
		const struct elf_load *l = &img->loads[i];

		if (off >= l->offset && off - l->offset < l->memsz) {
			*vaddr = l->vaddr + (off - l->offset);
			return true;
		}
	}
	return false;
}

/* ---- mappings ---- */

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Take [start, end) out of p's mappings (a new mapping replaces it). */
static void
maps_punch(struct sym_proc *p, uint64_t start, uint64_t end)
{
	for (size_t i = 0; i < p->n_maps;) {
		struct sym_map *m = &p->maps[i];

		if (m->end <= start || m->start >= end) {
			i++;
			continue;
		}
		if (m->start < start && m->end > end) {
			/* Split: the right part becomes a map of its own. */
			struct sym_map right = *m;

			right.pgoff += end - m->start;
			right.start = end;
			right.name = m->name ? xstrdup(m->name) : NULL;
			right.name_id = m->name_id;
			m->end = start;
			if (p->n_maps == p->cap_maps) {
				p->cap_maps = p->cap_maps ? p->cap_maps * 2 : 64;
				p->maps = xreallocarray(p->maps, p->cap_maps, sizeof(*p->maps));
			}
			memmove(&p->maps[i + 2], &p->maps[i + 1], (p->n_maps - i - 1) * sizeof(*p->maps));
			p->maps[i + 1] = right;
			p->n_maps++;
			return;
		}
		if (m->start < start) {
			m->end = start;
			i++;
		} else if (m->end > end) {
			m->pgoff += end - m->start;
			m->start = end;
			i++;
		} else {
			free(m->name);
			memmove(m, m + 1, (p->n_maps - i - 1) * sizeof(*m));
			p->n_maps--;
		}
	}
}

static void
maps_insert(struct symbols *s, struct sym_proc *p, uint64_t start, uint64_t end, uint64_t pgoff,
	    bool exec, uint64_t ino, const char *name)
{
	struct sym_map m = { .start = start, .end = end, .pgoff = pgoff, .exec = exec };
	size_t i;

	if (end <= start)
		return;
	maps_punch(p, start, end);
	if (name && *name)
		m.name = xstrdup(name);
	/* Only code is resolved: data mappings need no file. */
	if (exec && name && strcmp(name, "[vdso]") == 0)
		m.img = image_get_vdso(s, p->pid, start, end);
	else if (exec && name && name[0] == '/')
		m.img = image_get_file(s, p->pid, name, ino);
	if (m.img) {
		uint64_t vaddr;

		m.bias = image_offset_vaddr(m.img, pgoff, &vaddr) ? start - vaddr : start - pgoff;
	}
	if (p->n_maps == p->cap_maps) {
		p->cap_maps = p->cap_maps ? p->cap_maps * 2 : 64;
		p->maps = xreallocarray(p->maps, p->cap_maps, sizeof(*p->maps));
	}
	for (i = p->n_maps; i > 0 && p->maps[i - 1].start > start; i--)
		;
	memmove(&p->maps[i + 1], &p->maps[i], (p->n_maps - i) * sizeof(*p->maps));
	p->maps[i] = m;
	p->n_maps++;
	p->generation++;
}

/* Read /proc/PID/maps into p (replacing what it had). */
static void
maps_read(struct symbols *s, struct sym_proc *p)
{
	char path[64], line[PATH_MAX + 128];
	FILE *f;

	p->maps_read_ns = now_ns();
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)p->pid);
	f = fopen(path, "re");
	if (!f)
		return;
	maps_clear(p);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off, ino;
		char perms[8];
		int name_at = 0;
		char *name, *nl;

		if (sscanf(line, "%llx-%llx %7s %llx %*x:%*x %llu %n", &start, &end, perms, &off,
			   &ino, &name_at) < 5)
			continue;
		name = line + name_at;
		nl = strchr(name, '\n');
		if (nl)
			*nl = '\0';
		maps_insert(s, p, start, end, off, perms[2] == 'x', ino, *name ? name : NULL);
	}
	fclose(f);
}

struct sym_proc *
symbols_proc(struct symbols *s, pid_t pid)
{
	struct sym_proc *p;

	for (p = s->procs; p; p = p->next)
		if (p->pid == pid)
			return p;
	p = xcalloc(1, sizeof(*p));
	p->pid = pid;
	p->next = s->procs;
	s->procs = p;
	maps_read(s, p);
	return p;
}

void
symbols_proc_del(struct symbols *s, pid_t pid)
{
	for (struct sym_proc **pp = &s->procs; *pp; pp = &(*pp)->next)
		if ((*pp)->pid == pid) {
			struct sym_proc *p = *pp;

			*pp = p->next;
			proc_free(p);
			return;
		}
}

void
sym_proc_exec(struct sym_proc *p)
{
	maps_clear(p);
}

void
sym_proc_mmap(struct symbols *s, struct sym_proc *p, uint64_t start, uint64_t len,
	      uint64_t pgoff, bool exec, uint64_t ino, const char *name)
{
	/* Anonymous mappings come as "//anon". */
	if (name && strcmp(name, "//anon") == 0)
		name = NULL;
	maps_insert(s, p, start, start + len, pgoff, exec, ino, name);
}

static struct sym_map *
maps_lookup(struct sym_proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->n_maps;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (addr < p->maps[mid].start)
			hi = mid;
		else if (addr >= p->maps[mid].end)
			lo = mid + 1;
		else
			return &p->maps[mid];
	}
	return NULL;
}

#define MAPS_REREAD_NS 100000000ULL

struct sym_map *
sym_proc_find(struct symbols *s, struct sym_proc *p, uint64_t addr)
{
	struct sym_map *m = maps_lookup(p, addr);

	if (!m && now_ns() - p->maps_read_ns > MAPS_REREAD_NS) {
		maps_read(s, p);
		m = maps_lookup(p, addr);
	}
	return m;
}

static const char *
sym_name(struct elf_sym *sym)
{
	if (!sym->demangle_tried) {
		int status = -1;

		sym->demangle_tried = true;
		if (strncmp(sym->name, "_Z", 2) == 0) {
			sym->demangled = __cxa_demangle(sym->name, NULL, NULL, &status);
			if (status != 0) {
				free(sym->demangled);
				sym->demangled = NULL;
			}
		}
	}
	return sym->demangled ? sym->demangled : sym->name;
}

void
sym_resolve(struct symbols *s, struct sym_proc *p, uint64_t addr, bool caller_frame,
	    struct sym_lookup *out)
{
	uint64_t look = caller_frame && addr ? addr - 1 : addr;
	struct sym_map *m = sym_proc_find(s, p, look);
	uint64_t vaddr;
	size_t lo = 0, hi;

	memset(out, 0, sizeof(*out));
	out->offset = addr;
	if (!m)
		return;
	out->map = m;
	if (!m->img) {
		out->offset = addr - m->start + m->pgoff;
		return;
	}
	vaddr = look - m->bias;
	out->offset = addr - m->bias;
	hi = m->img->n_syms;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->img->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0) {
		struct elf_sym *sym = &m->img->syms[lo - 1];

		if (vaddr - sym->addr < sym->size) {
			out->symbol = sym_name(sym);
			out->symbol_id = &sym->id;
			out->offset = addr - m->bias - sym->addr;
		}
	}
}

bool
sym_map_eh_frame(const struct sym_map *m, uint64_t *hdr_addr, uint64_t *table_addr,
		 uint64_t *fde_count)
{
	if (!m->img || !m->img->eh_ok)
		return false;
	*hdr_addr = m->img->eh_hdr_vaddr + m->bias;
	*table_addr = m->img->eh_table_vaddr + m->bias;
	*fde_count = m->img->eh_fde_count;
	return true;
}

bool
sym_proc_read_file(struct sym_proc *p, uint64_t addr, void *buf, size_t n)
{
	for (size_t i = 0; i < p->n_maps; i++) {
		const struct sym_map *m = &p->maps[i];
		const struct elf_image *img = m->img;
		uint64_t vaddr;

		if (!img || addr - m->bias < img->vmin || addr - m->bias >= img->vmax)
			continue;
		vaddr = addr - m->bias;
		for (size_t k = 0; k < img->n_loads; k++) {
			const struct elf_load *l = &img->loads[k];

			if (vaddr >= l->vaddr && vaddr - l->vaddr < l->filesz &&
			    n <= l->filesz - (vaddr - l->vaddr) &&
			    in_bounds(img, l->offset + (vaddr - l->vaddr), n)) {
				memcpy(buf, img->data + l->offset + (vaddr - l->vaddr), n);
				return true;
			}
		}
	}
	return false;
}
