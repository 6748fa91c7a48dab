/*
 * Memory accesses to globals and the stack, for the comparison with
 * valgrind --tool=lackey --trace-mem=yes (tracer_valgrind.sh).
 * Hand count: 17 instructions before the exit sequence, 3 in it: E = 20,
 * H = 18 (the rep movsl of 3 iterations counts 3 in E, 1 in H).
 */
	.globl _start
	.text
_start:
	mov	a(%rip), %rax		/* L a,8 */
	mov	%eax, b(%rip)		/* S b,4 */
	addw	$1, c(%rip)		/* M c,2 */
	push	%rax			/* S stack,8 */
	pop	%rbx			/* L stack,8 */
	call	f			/* S stack,8 */
	movzbl	d+3(%rip), %ecx		/* L d+3,1 */
	lea	a(%rip), %rsi
	lea	e(%rip), %rdi
	mov	$3, %ecx
	rep movsl			/* 3 x (L 4, S 4) */
	incq	e+16(%rip)		/* M e+16,8 */
	cmpb	$0, d(%rip)		/* L d,1 */
	mov	$60, %eax
	xor	%edi, %edi
	syscall
f:	mov	b(%rip), %edx		/* L b,4 */
	ret				/* L stack,8 */

	.data
	.align 8
a:	.quad 0x1122334455667788
b:	.long 0
c:	.word 7
d:	.ascii "wxyz"
	.bss
	.align 8
e:	.zero 32
