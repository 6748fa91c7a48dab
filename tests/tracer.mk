## Tests for issue tracer are listed here.
##
## Tiny static assembly programs (no libc) with hand-counted instruction
## counts.  They get their own rule: no $(CFLAGS), so sanitizer flags of a
## CI build never reach a -nostdlib program.
TRACER_ASM = tests/asm/loop tests/asm/rep tests/asm/calls tests/asm/branches \
	tests/asm/threads tests/asm/signals tests/asm/forkexec tests/asm/sleeper \
	tests/asm/memops tests/asm/spinner tests/asm/futex tests/asm/phases tests/asm/selfloop \
	tests/asm/selfmod tests/asm/int3
check_SCRIPTS += $(TRACER_ASM)
CLEANFILES += $(TRACER_ASM)
EXTRA_DIST += $(TRACER_ASM:=.S)

$(TRACER_ASM): %: $(top_srcdir)/%.S
	@$(MKDIR_P) tests/asm
	$(AM_V_CC)$(CC) -nostdlib -static -o $@ $(top_srcdir)/$@.S

## A static glibc C program (gcc -O1 -static), compared with callgrind and
## traced both ways (TF and leapfrog).  Its own rule: no $(CFLAGS) either.
TRACER_CPROG = tests/cprog/static_prog tests/cprog/own_sigtrap tests/cprog/wait_threads
check_SCRIPTS += $(TRACER_CPROG)
CLEANFILES += $(TRACER_CPROG)
EXTRA_DIST += $(TRACER_CPROG:=.c)

$(TRACER_CPROG): %: $(top_srcdir)/%.c
	@$(MKDIR_P) tests/cprog
	$(AM_V_CC)$(CC) -O1 -static -o $@ $(top_srcdir)/$@.c

check_PROGRAMS += tests/trace_read tests/ring_test tests/tracefile_test
tests_trace_read_SOURCES = tests/trace_read.c
tests_trace_read_LDADD = libmicad.a $(MICA_LIBS) $(SAMPLE_LIBS) $(AX_PTHREAD_LIBS)
tests_ring_test_SOURCES = tests/ring_test.c
tests_ring_test_LDADD = libmicad.a $(MICA_LIBS) $(SAMPLE_LIBS) $(AX_PTHREAD_LIBS)
tests_tracefile_test_SOURCES = tests/tracefile_test.c
tests_tracefile_test_LDADD = libmicad.a $(MICA_LIBS) $(SAMPLE_LIBS) $(AX_PTHREAD_LIBS)

TESTS += tests/ring_test tests/tracefile_test \
	tests/tracer_counts.sh tests/tracer_attach.sh tests/tracer_record.sh \
	tests/tracer_valgrind.sh tests/tracer_callgrind.sh tests/tracer_leapfrog.sh \
	tests/tracer_sigtrap.sh tests/tracer_survive.sh tests/tracer_affinity.sh \
	tests/tracer_eperm.sh
EXTRA_DIST += tests/tracer_counts.sh tests/tracer_attach.sh tests/tracer_record.sh \
	tests/tracer_valgrind.sh tests/tracer_lib.sh tests/tracer_callgrind.sh \
	tests/tracer_leapfrog.sh tests/tracer_sigtrap.sh tests/tracer_survive.sh \
	tests/tracer_affinity.sh tests/tracer_eperm.sh tests/wait.sh
