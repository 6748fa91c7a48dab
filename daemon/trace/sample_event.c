/*
 * Which perf event samples the program (sample_event.h).
 *
 * Names are read in three ways:
 *  - PMU/term=value,.../ (perf's syntax for a sysfs PMU, e.g.
 *    ibs_op/cnt_ctl=1/; plain "ibs_op" too): attr.type from
 *    /sys/bus/event_source/devices/PMU/type, each term's bits from
 *    .../PMU/format/TERM ("config:19", "config1:0-7,32-35");
 *  - anything else through libpfm4 (pfm_get_os_event_encoding with
 *    PFM_OS_PERF_EVENT_EXT): the PMU's own names (INST_RETIRED:ANY_P,
 *    RETIRED_INSTRUCTIONS) and perf's generic ones (cycles, instructions,
 *    cpu-clock, task-clock);
 *  - perf's modifiers after a last ':' made only of u, k, p and P: user,
 *    kernel, precise_ip (one p per level), and P for the most precise level
 *    the CPU takes (lowered step by step, as perf's
 *    perf_event_attr__set_max_precise_ip() does).  Without u or k, only
 *    user space is sampled (what perf_event_paranoid 2 allows anyway).
 */
#include "config.h"
#include "trace/sample_event.h"

#include <errno.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

#define SYSFS_PMUS "/sys/bus/event_source/devices"

int
sample_event_open(const struct perf_event_attr *attr, pid_t tid)
{
	return (int)syscall(SYS_perf_event_open, attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* An integer from a one-line file (sysfs, procfs): 0, or -1. */
static int
read_long(const char *path, long *v)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%ld", v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

/* Whether the kernel has a hardware PMU for the CPU (hybrid Intel parts
 * have cpu_core and cpu_atom instead of cpu). */
static bool
have_cpu_pmu(void)
{
	return access(SYSFS_PMUS "/cpu", F_OK) == 0 || access(SYSFS_PMUS "/cpu_core", F_OK) == 0;
}

/* The highest precise_ip the CPU PMU takes (sysfs caps/max_precise), or
 * -1 where the kernel does not say. */
static long
max_precise(void)
{
	long v;

	if (read_long(SYSFS_PMUS "/cpu/caps/max_precise", &v) == 0 ||
	    read_long(SYSFS_PMUS "/cpu_core/caps/max_precise", &v) == 0)
		return v;
	return -1;
}

static const char *
errno_name(int e)
{
	const char *s = strerrorname_np(e);

	return s ? s : "unknown error";
}

void
sample_event_strerror(const char *name, const struct perf_event_attr *attr, int err,
		      char *buf, size_t n)
{
	long v;

	switch (err) {
	case EACCES:
	case EPERM: {
		long paranoid = 2;

		read_long("/proc/sys/kernel/perf_event_paranoid", &paranoid);
		/* Kernel samples need 1 or less, user-only ones 2 or less. */
		snprintf(buf, n,
			 "cannot open event '%s': %s (%s): access to performance monitoring is "
			 "limited.\n"
			 "perf_event_paranoid setting is %ld:\n"
			 "  -1: Allow use of (almost) all events by all users\n"
			 "      Ignore mlock limit after perf_event_mlock_kb without CAP_IPC_LOCK\n"
			 ">= 0: Disallow raw and ftrace function tracepoint access\n"
			 ">= 1: Disallow CPU event access\n"
			 ">= 2: Disallow kernel profiling\n"
			 ">= 3: Disallow all events (kernels with that patch, e.g. Debian's)\n"
			 "Lower it (as root: sysctl -w kernel.perf_event_paranoid=%d)%s, or give "
			 "micad CAP_PERFMON.",
			 name, strerror(err), errno_name(err), paranoid,
			 attr->exclude_kernel ? 2 : 1,
			 attr->exclude_kernel ? "" : ", or sample user space only (drop 'k' from "
			 "the event's modifiers)");
		break;
	}
	case EBUSY:
		snprintf(buf, n,
			 "cannot open event '%s': %s (EBUSY): the PMU's counters are taken, by the "
			 "NMI watchdog (as root: sysctl -w kernel.nmi_watchdog=0) or another "
			 "profiler; stop it, or use -e cpu-clock", name, strerror(err));
		break;
	case ENOENT:
	case ENODEV:
	case ENXIO:
		snprintf(buf, n,
			 "cannot open event '%s': %s (%s): the kernel has no such PMU or event "
			 "here%s",
			 name, strerror(err), errno_name(err),
			 attr->type == PERF_TYPE_SOFTWARE ? "" : have_cpu_pmu() ?
			 " (the CPU PMU does not have it)" :
			 "; this machine has no hardware PMU (" SYSFS_PMUS " has no 'cpu': a "
			 "virtual machine without a vPMU?): use a software event, -e cpu-clock");
		break;
	case EOPNOTSUPP:
		if (attr->precise_ip) {
			long mp = max_precise();
			char mps[64];

			if (mp >= 0)
				snprintf(mps, sizeof(mps), "caps/max_precise says %ld", mp);
			else
				snprintf(mps, sizeof(mps), "the kernel does not say its maximum");
			snprintf(buf, n,
				 "cannot open event '%s': precise_ip %u is more than this CPU "
				 "takes for it (%s): ask for fewer p's, or ':P' for the most "
				 "precise level it has", name, (unsigned)attr->precise_ip, mps);
		} else {
			snprintf(buf, n, "cannot open event '%s': %s (EOPNOTSUPP): its PMU "
				 "cannot sample it (or not with these settings)", name,
				 strerror(err));
		}
		break;
	case EINVAL:
		if (attr->freq && read_long("/proc/sys/kernel/perf_event_max_sample_rate", &v) == 0 &&
		    attr->sample_freq > (uint64_t)v) {
			snprintf(buf, n, "cannot open event '%s': -F %llu is above "
				 "kernel.perf_event_max_sample_rate (%ld): ask for less", name,
				 (unsigned long long)attr->sample_freq, v);
		} else {
			snprintf(buf, n, "cannot open event '%s': %s (EINVAL): the kernel refused "
				 "its settings (precise_ip %u, sample type 0x%llx%s)", name,
				 strerror(err), (unsigned)attr->precise_ip,
				 (unsigned long long)attr->sample_type,
				 attr->precise_ip ? "; try fewer p's" : "");
		}
		break;
	case EMFILE:
		snprintf(buf, n, "cannot open event '%s': %s: one event per traced thread: "
			 "raise the open-file limit (ulimit -n)", name, strerror(err));
		break;
	default:
		snprintf(buf, n, "cannot open event '%s': %s (%s)", name, strerror(err),
			 errno_name(err));
		break;
	}
}

/* The sampling part of attr: what every sample carries, how often, which
 * side records, the clock. */
static void
set_sampling(struct perf_event_attr *a, const struct sample_options *o)
{
	a->size = sizeof(*a);
	a->disabled = 1;
	if (o->count) {
		a->freq = 0;
		a->sample_period = o->count;
	} else {
		a->freq = 1;
		a->sample_freq = o->freq;
	}
	a->sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
	if (o->call_graph == CALL_GRAPH_FP) {
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		a->exclude_callchain_kernel = 1;
	} else {
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = PERF_REGS_USER_X86_64;
		a->sample_stack_user = o->stack_bytes;
	}
	/* Executable mappings (libraries loaded later, dlopen), exec, thread
	 * ends: resolved in stream order. */
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	/* Sample times on the clock of the burst markers. */
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	/* The other records end with the sample's TID and TIME: a LOST
	 * record says when (perf record asks for the same). */
	a->sample_id_all = 1;
}

/* Whether an event counts retired instructions (bursts can then be
 * placed by instruction count). */
static bool
counts_instructions(const struct perf_event_attr *a, const char *fstr)
{
	if (a->type == PERF_TYPE_HARDWARE)
		return a->config == PERF_COUNT_HW_INSTRUCTIONS;
	return fstr && (strstr(fstr, "INST_RETIRED") || strstr(fstr, "RETIRED_INSTRUCTIONS") ||
			strstr(fstr, "INSTRUCTIONS_RETIRED"));
}

/* Open attr on ourselves and close it: 0 or the errno. */
static int
probe(const struct perf_event_attr *a)
{
	int fd = sample_event_open(a, 0);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/*
 * Try attr, then, on EOPNOTSUPP or EINVAL, lower precise_ip (when
 * lower_precise) and drop optional sample fields (the hardware's data
 * address, weight and data source): the first that opens is kept in *a.
 * 0, or the errno of the first attempt with everything asked.
 */
static int
open_ladder(struct perf_event_attr *a, bool lower_precise)
{
	static const uint64_t drops[] = {
		0, PERF_SAMPLE_WEIGHT_STRUCT, PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT,
		PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC,
		PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC |
		PERF_SAMPLE_ADDR,
	};
	struct perf_event_attr want = *a;
	int first = 0;

	for (size_t d = 0; d < sizeof(drops) / sizeof(drops[0]); d++) {
		struct perf_event_attr t = want;

		if (d && !(want.sample_type & drops[d] & ~drops[d - 1]))
			continue;	/* nothing more dropped */
		t.sample_type &= ~drops[d];
		/* WEIGHT in place of WEIGHT_STRUCT, on kernels before 5.12. */
		if (d == 1 && (want.sample_type & PERF_SAMPLE_WEIGHT_STRUCT))
			t.sample_type |= PERF_SAMPLE_WEIGHT;
		for (;;) {
			int e = probe(&t);

			if (!e) {
				*a = t;
				return 0;
			}
			if (!first)
				first = e;
			if (e != EOPNOTSUPP && e != EINVAL)
				return first;
			if (!lower_precise || t.precise_ip == 0)
				break;
			t.precise_ip--;
		}
	}
	return first;
}

/* perf's modifiers after the last ':' (only u, k, p, P): strips them from
 * base and says what they ask; false if base has none. */
struct modifiers {
	bool user, kernel;
	unsigned precise;
	bool max_precise;
};

static bool
split_modifiers(char *base, struct modifiers *m)
{
	char *colon = strrchr(base, ':');

	memset(m, 0, sizeof(*m));
	if (!colon || !colon[1] || strspn(colon + 1, "ukpP") != strlen(colon + 1))
		return false;
	for (const char *c = colon + 1; *c; c++) {
		if (*c == 'u')
			m->user = true;
		else if (*c == 'k')
			m->kernel = true;
		else if (*c == 'p')
			m->precise++;
		else
			m->max_precise = true;
	}
	*colon = '\0';
	return true;
}

static void
apply_modifiers(struct perf_event_attr *a, const struct modifiers *m)
{
	bool user = m->user || !m->kernel, kernel = m->kernel;

	a->exclude_user = !user;
	a->exclude_kernel = !kernel;
	a->exclude_hv = 1;
	if (m->precise)
		a->precise_ip = m->precise > 3 ? 3 : m->precise;
	if (m->max_precise) {
		long mp = max_precise();

		a->precise_ip = mp >= 0 && mp <= 3 ? (unsigned)mp : 3;
	}
}

/*
 * PMU/term=value,.../ (or a bare PMU name with a sysfs type): attr.type and
 * config bits from sysfs.  0, or -1 with the reason in err.
 */
static int
encode_sysfs(const char *spec, struct perf_event_attr *a, char *err, size_t errsz)
{
	char pmu[64], terms[256], path[200];
	const char *slash = strchr(spec, '/');
	size_t plen = slash ? (size_t)(slash - spec) : strlen(spec);
	long type;

	if (plen == 0 || plen >= sizeof(pmu) || strchr(spec, '.') ) {
		snprintf(err, errsz, "'%s' is not an event name", spec);
		return -1;
	}
	memcpy(pmu, spec, plen);
	pmu[plen] = '\0';
	terms[0] = '\0';
	if (slash) {
		const char *end = strrchr(slash + 1, '/');
		size_t tlen;

		if (!end || end[1]) {
			snprintf(err, errsz, "'%s': a PMU event is PMU/term=value,.../", spec);
			return -1;
		}
		tlen = (size_t)(end - slash - 1);
		if (tlen >= sizeof(terms)) {
			snprintf(err, errsz, "'%s': too many terms", spec);
			return -1;
		}
		memcpy(terms, slash + 1, tlen);
		terms[tlen] = '\0';
	}
	snprintf(path, sizeof(path), SYSFS_PMUS "/%s/type", pmu);
	if (read_long(path, &type) < 0) {
		snprintf(err, errsz, "this machine has no '%s' PMU (%s: %s)%s", pmu, path,
			 strerror(errno),
			 strcmp(pmu, "ibs_op") == 0 ? ": AMD IBS needs an AMD CPU (family 10h or "
			 "later) and, in a virtual machine, a hypervisor that passes IBS through" : "");
		return -1;
	}
	a->type = (uint32_t)type;
	for (char *save = NULL, *t = strtok_r(terms, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '='), fmt[64];
		unsigned long long val = 1;
		__u64 *field;
		FILE *f;
		char *p;

		if (eq) {
			*eq = '\0';
			if (parse_u64(eq + 1, &val) < 0 &&
			    sscanf(eq + 1, "0x%llx", &val) != 1) {
				snprintf(err, errsz, "'%s': '%s' is not a number", spec, eq + 1);
				return -1;
			}
		}
		if (strchr(t, '/') || strstr(t, "..")) {
			snprintf(err, errsz, "'%s': '%s' is not a term name", spec, t);
			return -1;
		}
		snprintf(path, sizeof(path), SYSFS_PMUS "/%s/format/%s", pmu, t);
		f = fopen(path, "r");
		if (!f || !fgets(fmt, sizeof(fmt), f)) {
			snprintf(err, errsz, "the '%s' PMU has no term '%s' (%s)", pmu, t, path);
			if (f)
				fclose(f);
			return -1;
		}
		fclose(f);
		/* "config:19", "config1:0-7", "config:0-7,32-35". */
		p = strchr(fmt, ':');
		if (!p) {
			snprintf(err, errsz, "%s: unreadable format '%s'", path, fmt);
			return -1;
		}
		*p++ = '\0';
		field = strcmp(fmt, "config") == 0 ? &a->config : strcmp(fmt, "config1") == 0 ?
			&a->config1 : strcmp(fmt, "config2") == 0 ? &a->config2 : NULL;
		if (!field) {
			snprintf(err, errsz, "%s: unknown field '%s'", path, fmt);
			return -1;
		}
		for (char *s2 = NULL, *r = strtok_r(p, ",\n", &s2); r; r = strtok_r(NULL, ",\n", &s2)) {
			unsigned lo, hi;
			int k = sscanf(r, "%u-%u", &lo, &hi);

			if (k == 1)
				hi = lo;
			if (k < 1 || hi < lo || hi > 63) {
				snprintf(err, errsz, "%s: unreadable bit range '%s'", path, r);
				return -1;
			}
			for (unsigned b = lo; b <= hi; b++, val >>= 1)
				if (val & 1)
					*field |= 1ULL << b;
		}
	}
	return 0;
}

/* Through libpfm4: 0, or -1 with the reason in err. */
static int
encode_pfm(const char *name, bool kernel, struct perf_event_attr *a, char **fstr,
	   char *err, size_t errsz)
{
	static int init = PFM_ERR_NOINIT;
	pfm_perf_encode_arg_t arg;
	int r;

	if (init == PFM_ERR_NOINIT)
		init = pfm_initialize();
	if (init != PFM_SUCCESS) {
		snprintf(err, errsz, "libpfm4 cannot start (pfm_initialize: %s)", pfm_strerror(init));
		return -1;
	}
	memset(&arg, 0, sizeof(arg));
	arg.attr = a;
	arg.size = sizeof(arg);
	arg.fstr = fstr;
	r = pfm_get_os_event_encoding(name, kernel ? PFM_PLM0 | PFM_PLM3 : PFM_PLM3,
				      PFM_OS_PERF_EVENT_EXT, &arg);
	if (r != PFM_SUCCESS) {
		if (r == PFM_ERR_NOTFOUND)
			snprintf(err, errsz, "unknown event '%s': neither a perf name (cycles, "
				 "instructions, cpu-clock, task-clock, ...) nor an event libpfm4 "
				 "knows for this CPU (list them with libpfm4's showevtinfo; AMD's "
				 "instruction sampling is ibs_op)", name);
		else
			snprintf(err, errsz, "event '%s': libpfm4 cannot encode it (%s)", name,
				 pfm_strerror(r));
		return -1;
	}
	return 0;
}

/* The rate part of the note: "at 999 Hz", "every 100003 events". */
static void
rate_text(const struct perf_event_attr *a, char *buf, size_t n)
{
	if (a->freq)
		snprintf(buf, n, "at %llu Hz", (unsigned long long)a->sample_freq);
	else if (a->type == PERF_TYPE_SOFTWARE)
		snprintf(buf, n, "every %llu ns", (unsigned long long)a->sample_period);
	else
		snprintf(buf, n, "every %llu events", (unsigned long long)a->sample_period);
}

static void
finish_note(struct sample_event *ev, const struct sample_options *o, const char *why)
{
	char rate[64];

	rate_text(&ev->attr, rate, sizeof(rate));
	snprintf(ev->note, sizeof(ev->note), "%s%ssampling %s %s, %s", why, *why ? "; " : "",
		 ev->name, rate,
		 o->no_bursts ? "profile only (--no-bursts)" :
		 ev->weighting == WEIGHT_INSTRUCTIONS ?
		 "bursts by ptrace placed by retired instructions (instruction-weighted estimates)" :
		 "bursts by ptrace placed by time (time-weighted estimates)");
}

/* The name with perf's precise modifier as in effect: "cycles:pp". */
static void
set_name(struct sample_event *ev, const char *base)
{
	snprintf(ev->name, sizeof(ev->name), "%s%s%.*s", base, ev->attr.precise_ip ? ":" : "",
		 (int)ev->attr.precise_ip, "ppp");
}

static int
select_default(const struct sample_options *o, struct sample_event *ev)
{
	struct perf_event_attr *a = &ev->attr;
	char why[256], msg[2048];
	int e;

	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_HARDWARE;
	a->config = PERF_COUNT_HW_CPU_CYCLES;
	apply_modifiers(a, &(struct modifiers){ .max_precise = true });
	set_sampling(a, o);
	a->sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC;
	e = open_ladder(a, true);
	if (e == 0) {
		ev->weighting = WEIGHT_TIME;
		set_name(ev, "cycles");
		finish_note(ev, o, "");
		return 0;
	}
	if (e != ENOENT && e != ENODEV && e != ENXIO && e != EOPNOTSUPP) {
		sample_event_strerror("cycles", a, e, msg, sizeof(msg));
		error_msg("%s", msg);
		return -1;
	}
	if (!have_cpu_pmu())
		snprintf(why, sizeof(why), "no hardware PMU here (perf_event_open of "
			 "PERF_TYPE_HARDWARE: %s)", errno_name(e));
	else
		snprintf(why, sizeof(why), "the hardware PMU does not sample cycles here "
			 "(perf_event_open of PERF_TYPE_HARDWARE: %s)", errno_name(e));
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	apply_modifiers(a, &(struct modifiers){ 0 });
	set_sampling(a, o);
	e = open_ladder(a, false);
	if (e) {
		sample_event_strerror("cpu-clock", a, e, msg, sizeof(msg));
		error_msg("%s (after: %s)", msg, why);
		return -1;
	}
	ev->weighting = WEIGHT_TIME;
	set_name(ev, "cpu-clock");
	finish_note(ev, o, why);
	return 0;
}

static int
select_named(const struct sample_options *o, struct sample_event *ev)
{
	struct perf_event_attr *a = &ev->attr;
	char base[64], err[1024], msg[2048], *fstr = NULL;
	struct modifiers m;
	bool sysfs;
	int e;

	snprintf(base, sizeof(base), "%s", o->event);
	split_modifiers(base, &m);
	memset(a, 0, sizeof(*a));
	sysfs = strchr(base, '/') || strcmp(base, "ibs_op") == 0;
	if (sysfs ? encode_sysfs(base, a, err, sizeof(err)) < 0
		  : encode_pfm(base, m.kernel, a, &fstr, err, sizeof(err)) < 0) {
		error_msg("-e %s: %s", o->event, err);
		return -1;
	}
	ev->ibs_op = strncmp(base, "ibs_op", 6) == 0 && (base[6] == '\0' || base[6] == '/');
	apply_modifiers(a, &m);
	set_sampling(a, o);
	if (ev->ibs_op) {
		/* The raw MSR block, decoded here; newer kernels also fill
		 * the generic fields (dropped by the ladder where not). */
		a->sample_type |= PERF_SAMPLE_RAW | PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT_STRUCT |
				  PERF_SAMPLE_DATA_SRC;
	} else if (a->precise_ip && a->type != PERF_TYPE_SOFTWARE) {
		a->sample_type |= PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC;
	}
	e = open_ladder(a, m.max_precise);
	if (e == EINVAL && ev->ibs_op && a->exclude_kernel) {
		/* IBS cannot tell user from kernel in hardware: kernels
		 * refuse exclude_kernel unless their software filter is
		 * asked for (config2 bit 0, swfilt). */
		struct perf_event_attr t = *a;

		t.config2 |= 1;
		if (open_ladder(&t, false) == 0) {
			*a = t;
			e = 0;
		}
	}
	if (e) {
		sample_event_strerror(o->event, a, e, msg, sizeof(msg));
		error_msg("%s", msg);
		free(fstr);
		return -1;
	}
	ev->weighting = counts_instructions(a, fstr) ? WEIGHT_INSTRUCTIONS : WEIGHT_TIME;
	set_name(ev, base);
	finish_note(ev, o, "");
	free(fstr);
	return 0;
}

int
sample_event_select(const struct sample_options *o, struct sample_event *ev)
{
	int r;

	memset(ev, 0, sizeof(*ev));
	r = o->event ? select_named(o, ev) : select_default(o, ev);
	if (r < 0)
		return r;
	ev->fmt.sample_type = ev->attr.sample_type;
	ev->fmt.regs_user = ev->attr.sample_regs_user;
	ev->fmt.sample_id_all = ev->attr.sample_id_all;
	if (!perf_sample_format_ok(&ev->fmt)) {
		error_msg("internal error: sample type 0x%llx not parsed",
			  (unsigned long long)ev->attr.sample_type);
		return -1;
	}
	return 0;
}
