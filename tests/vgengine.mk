## Tests of the valgrind engine (issue 19).  More tiny assembly programs
## (their own rule, as tests/tracer.mk's), and static_prog.c built
## dynamically (-O1, no $(CFLAGS) either: a target, not part of micad;
## not position-independent, so that callgrind gives its addresses as
## they are).
VGENGINE_ASM = tests/asm/vg_segv tests/asm/vg_ready tests/asm/vg_rep2 tests/asm/vg_smc \
	tests/asm/vg_fs tests/asm/vg_gather
check_SCRIPTS += $(VGENGINE_ASM) tests/cprog/dyn_prog
CLEANFILES += $(VGENGINE_ASM) tests/cprog/dyn_prog
EXTRA_DIST += $(VGENGINE_ASM:=.S)

$(VGENGINE_ASM): %: $(top_srcdir)/%.S
	@$(MKDIR_P) tests/asm
	$(AM_V_CC)$(CC) -nostdlib -static -o $@ $(top_srcdir)/$@.S

tests/cprog/dyn_prog: $(top_srcdir)/tests/cprog/static_prog.c
	@$(MKDIR_P) tests/cprog
	$(AM_V_CC)$(CC) -O1 -no-pie -o $@ $(top_srcdir)/tests/cprog/static_prog.c

TESTS += tests/vgengine.sh tests/vgengine_valgrind.sh tests/vgengine_daemon.sh
EXTRA_DIST += tests/vgengine.sh tests/vgengine_valgrind.sh tests/vgengine_daemon.sh \
	tests/vgengine_lackey.awk
