/*
 * A target for detaching in the middle of leapfrog stepping: 600 million
 * calls of a two-instruction function (no syscall until the end, so the
 * tracer's int3 is in the code whenever micad is asked to detach), then
 * write "done\n" and exit 7.  Not hand-counted.
 *
 * Given an argument, it installs a SIGUSR1 handler, writes "ready\n" and
 * calls the function until SIGUSR1 comes (at most 2^40 times), so that a
 * test decides when it ends, however slow the machine.
 */
	.globl _start
	.text
_start:
	mov	$600000000, %r12
	cmpq	$2, (%rsp)		/* argc */
	jb	1f
	mov	$13, %eax		/* rt_sigaction(SIGUSR1, &act, NULL, 8) */
	mov	$10, %edi
	lea	act(%rip), %rsi
	xor	%edx, %edx
	mov	$8, %r10d
	syscall
	mov	$1, %eax		/* write(1, "ready\n", 6) */
	mov	$1, %edi
	lea	ready(%rip), %rsi
	mov	$6, %edx
	syscall
	mov	$1, %r12
	shl	$40, %r12
1:	call	f
	cmpb	$0, stop(%rip)
	jne	2f
	dec	%r12
	jnz	1b
2:	mov	$1, %eax		/* write(1, "done\n", 5) */
	mov	$1, %edi
	lea	msg(%rip), %rsi
	mov	$5, %edx
	syscall
	mov	$60, %eax
	mov	$7, %edi
	syscall
f:	add	$1, %rax
	ret
handler:
	movb	$1, stop(%rip)
	ret
restorer:
	mov	$15, %eax		/* rt_sigreturn */
	syscall

	.data
	.align 8
act:	.quad handler, 0x04000000, restorer, 0	/* SA_RESTORER */
msg:	.ascii	"done\n"
ready:	.ascii	"ready\n"
stop:	.byte	0
