/*
 * Targets of sample mode's accuracy tests (tests/sample_accuracy.sh), each
 * loop five instructions on a cache line of its own:
 *   phase A: a load, two adds, dec, jnz
 *   phase B: a load, an add, a shift, dec, jnz (as fast as A, so that its
 *	share of the time is its share of the instructions: with a clock
 *	only, bursts are placed by time)
 *   phase R: a load striding 64 bytes through 4 MiB, wrapping (every
 *	read's reuse distance is 65,535 blocks, far beyond what a burst sees)
 * argv[1]: none: A then B, N = 1,500,000,000 iterations each (seconds
 * natively); "s": the same with N = 20,000 (short enough to step whole);
 * "a" / "A": A only, long / short; "r": R only, long.  Exits 0.
 */
	.globl _start
	.text
_start:
	mov	$1500000000, %r13		/* N */
	mov	$3, %r14d		/* phases: bit 0 A, bit 1 B */
	cmpq	$2, (%rsp)		/* argc */
	jb	1f
	mov	16(%rsp), %rax		/* argv[1] */
	movzbl	(%rax), %eax
	cmp	$'s', %al
	jne	2f
	mov	$20000, %r13
	jmp	1f
2:	cmp	$'a', %al
	jne	3f
	mov	$1, %r14d
	jmp	1f
3:	cmp	$'A', %al
	jne	8f
	mov	$1, %r14d
	mov	$20000, %r13
	jmp	1f
8:	cmp	$'r', %al
	jne	1f
	mov	$4, %r14d
1:	lea	buf(%rip), %rsi
	mov	%rsi, %rdi
	test	$1, %r14d
	jz	5f
	mov	%r13, %r12
	.p2align 6		/* both loops on a cache line of their own: as fast */
4:	mov	(%rsi), %rax
	add	%rax, %rbx
	add	$1, %rcx
	dec	%r12
	jnz	4b
5:	test	$2, %r14d
	jz	7f
	mov	%r13, %r12
	.p2align 6
6:	mov	(%rsi), %rax
	add	%rax, %rbx
	shl	$1, %rdx
	dec	%r12
	jnz	6b
7:	test	$4, %r14d
	jz	10f
	mov	%r13, %r12
	lea	big(%rip), %rsi
	xor	%ecx, %ecx
	.p2align 6
9:	mov	(%rsi,%rcx), %rax
	add	$64, %rcx
	and	$0x3fffff, %rcx
	dec	%r12
	jnz	9b
10:	mov	$60, %eax
	xor	%edi, %edi
	syscall

	.bss
	.align	64
buf:	.skip	64
	.align	4096
big:	.skip	4194304
