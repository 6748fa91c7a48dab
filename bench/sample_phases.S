/*
 * The program of 'make bench-sample' (bench/sample_bench.sh): four phases
 * of different character, each a loop of exactly 20 instructions per
 * iteration, run in turn in blocks of 8192 iterations (163,840
 * instructions, about 0.05 ms natively), round after round:
 *
 *   alu     independent arithmetic, one load walking 8 blocks (stride 64)
 *   chain   a serial chain of 10 dependent operations (shifts, rotates,
 *           a register copy), one load walking 16 blocks
 *   memory  two loads walking 2 KiB (stride 8), two stores walking 1 KiB
 *           (stride 64)
 *   branch  a branch taken every 16th iteration (either way 3
 *           instructions: a PPM predictor with 12 bits of history cannot
 *           see the period), push and pop, one load walking 4 blocks
 *
 * Sample mode places its bursts by time where only a clock samples
 * (this project's machines), so each phase must take the same share of the
 * time as of the instructions: every iteration also carries a chain of 4
 * dependent imul (3 cycles each on current x86-64 cores: 12 cycles), longer
 * than any other dependence in the loop, so that every phase runs at that
 * chain's speed whatever else it does (sample_bench.sh measures each phase
 * alone and prints the shares).
 *
 * Each phase is called through a chain of 4 frames (frame pointers and
 * CFI, an .eh_frame_hdr: stacks to unwind, by fp or dwarf).  No libc:
 * nothing runs before _start, so a short run's exact metrics are a long
 * run's to within a few hundred instructions.  Static and not PIE, its
 * stack aligned to a block: every run touches the same blocks at the same
 * offsets, whatever the address randomization (reuse distances and
 * strides do not change from run to run).
 *
 * argv[1]: rounds (default 16: about 10^7 instructions, short enough to
 * step whole); argv[2]: the phases to run, a bit mask (1 alu, 2 chain,
 * 4 memory, 8 branch; default 15); argv[3]: iterations per block (default
 * 8192; the bench's step-mode runs of a phase alone vary it, to tell a
 * phase's steady state from its calls and returns).  Exits 0.
 */

	.text
	.globl	_start
_start:
	.cfi_startproc
	.cfi_undefined rip
	xor	%ebp, %ebp
	mov	$16, %r15		/* rounds */
	mov	$15, %ebx		/* phases */
	cmpq	$2, (%rsp)		/* argc */
	jb	2f
	mov	16(%rsp), %rdi		/* argv[1] */
	call	atou
	mov	%rax, %r15
	cmpq	$3, (%rsp)
	jb	2f
	mov	24(%rsp), %rdi		/* argv[2] */
	call	atou
	mov	%rax, %rbx
	cmpq	$4, (%rsp)
	jb	2f
	mov	32(%rsp), %rdi		/* argv[3] */
	call	atou
	mov	%rax, iters(%rip)
2:	and	$-64, %rsp		/* the stack's blocks the same in every run */
	call	run
	mov	$60, %eax
	xor	%edi, %edi
	syscall
	.cfi_endproc

/* atou(%rdi): the decimal number at %rdi, into %rax. */
atou:
	.cfi_startproc
	xor	%eax, %eax
1:	movzbl	(%rdi), %ecx
	sub	$'0', %ecx
	cmp	$9, %ecx
	ja	2f
	imul	$10, %rax, %rax
	add	%rcx, %rax
	inc	%rdi
	jmp	1b
2:	ret
	.cfi_endproc

	.macro	PROLOGUE
	.cfi_startproc
	push	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	mov	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	.endm

	.macro	EPILOGUE
	pop	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.endm

/* run: %r15 rounds of the phases in %rbx. */
run:
	PROLOGUE
	test	%r15, %r15
	jz	9f
1:	call	round
	dec	%r15
	jnz	1b
9:	EPILOGUE

/* round: each phase of %rbx once, through 2 more frames. */
round:
	PROLOGUE
	test	$1, %bl
	jz	2f
	lea	phase_alu(%rip), %rax
	call	nest
2:	test	$2, %bl
	jz	3f
	lea	phase_chain(%rip), %rax
	call	nest
3:	test	$4, %bl
	jz	4f
	lea	phase_memory(%rip), %rax
	call	nest
4:	test	$8, %bl
	jz	5f
	lea	phase_branch(%rip), %rax
	call	nest
5:	EPILOGUE

nest:
	PROLOGUE
	call	*%rax
	EPILOGUE

	.p2align 6
phase_alu:
	PROLOGUE
	push	%rbx
	lea	tab_alu(%rip), %rsi
	xor	%ecx, %ecx
	mov	iters(%rip), %r14
	.p2align 6
1:	imul	%r8, %r8
	mov	(%rsi,%rcx), %rax
	add	$1, %rbx
	add	$3, %rdx
	imul	%r8, %r8
	sub	$5, %r9
	xor	$7, %r10
	add	%rax, %r11
	imul	%r8, %r8
	add	$64, %rcx
	and	$511, %rcx
	or	$1, %r12
	imul	%r8, %r8
	add	$1, %r13
	add	%rbx, %rdx
	sub	%r9, %r10
	xor	%r11, %r12
	add	$2, %rdi
	dec	%r14
	jnz	1b
	pop	%rbx
	EPILOGUE

	.p2align 6
phase_chain:
	PROLOGUE
	push	%rbx
	lea	tab_chain(%rip), %rsi
	xor	%ecx, %ecx
	mov	iters(%rip), %r14
	.p2align 6
1:	imul	%r8, %r8
	mov	(%rsi,%rcx), %rdx
	add	%rdx, %rax
	shl	$1, %rax
	imul	%r8, %r8
	xor	$0x55, %rax
	add	$7, %rax
	sar	$1, %rax
	imul	%r8, %r8
	sub	$3, %rax
	rol	$3, %rax
	add	$1, %rax
	imul	%r8, %r8
	xor	%rcx, %rax
	add	$64, %rcx
	and	$1023, %rcx
	mov	%rax, %rbx
	add	%rbx, %rax
	dec	%r14
	jnz	1b
	pop	%rbx
	EPILOGUE

	.p2align 6
phase_memory:
	PROLOGUE
	push	%rbx
	lea	tab_mem(%rip), %rsi
	lea	out_mem(%rip), %rdi
	xor	%ecx, %ecx
	xor	%r10d, %r10d
	mov	iters(%rip), %r14
	.p2align 6
1:	imul	%r8, %r8
	mov	(%rsi,%rcx), %rax
	mov	8(%rsi,%rcx), %rdx
	add	%rax, %rbx
	imul	%r8, %r8
	add	%rdx, %r9
	mov	%rbx, (%rdi,%r10)
	add	$16, %rcx
	imul	%r8, %r8
	and	$2047, %rcx
	mov	%r9, 8(%rdi,%r10)
	add	$64, %r10
	imul	%r8, %r8
	and	$1023, %r10
	add	$1, %r11
	xor	%rax, %r12
	add	$2, %r13
	sub	$1, %r12
	dec	%r14
	jnz	1b
	pop	%rbx
	EPILOGUE

	.p2align 6
phase_branch:
	PROLOGUE
	push	%rbx
	lea	tab_branch(%rip), %rsi
	xor	%ecx, %ecx
	mov	iters(%rip), %r14
	.p2align 6
1:	imul	%r8, %r8
	mov	(%rsi,%rcx), %rax
	add	$64, %rcx
	and	$255, %rcx
	imul	%r8, %r8
	test	$15, %r14b
	jz	2f
	add	$1, %rbx		/* 15 of 16: jz, add, jmp */
	jmp	3f
2:	add	$2, %rbx		/* 1 of 16: jz, add, add */
	add	$3, %r9
3:	imul	%r8, %r8
	push	%rax
	push	%rbx
	pop	%rdx
	pop	%r9
	imul	%r8, %r8
	add	%rdx, %r10
	xor	%r9, %r11
	add	$1, %r13
	dec	%r14
	jnz	1b
	pop	%rbx
	EPILOGUE

	.data
iters:	.quad	8192

	.bss
	.p2align 12
tab_alu:	.skip	512
tab_chain:	.skip	1024
tab_mem:	.skip	2048
tab_branch:	.skip	256
out_mem:	.skip	1024 + 64
	.section .note.GNU-stack, "", @progbits
