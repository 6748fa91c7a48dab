/*
 * The program's own breakpoints: int3 (cc) twice and int $3 (cd 03) once
 * raise SIGTRAP, caught by a handler that counts them; the program goes
 * on after each.  Exits with the count (3).  With an argument no handler
 * is installed: the first int3 kills the program by SIGTRAP (E = H = 3).
 * micad must tell them from its own breakpoints and deliver them as they
 * come.
 *
 * The handler is installed with SA_NODEFER: a tracer's own steps inside
 * a handler of SIGTRAP are SIGTRAPs the kernel forces (force_sig), and a
 * forced signal that is blocked, as the handler's own signal is during
 * the handler, resets its disposition to the default.  Without SA_NODEFER
 * the second int3 would kill the traced program (not the untraced one).
 *
 * Hand count (with the handler):
 *   cmpq, jne (not taken)                                       2
 *   rt_sigaction: mov, mov, lea, xor, mov, syscall              6
 *   int3 (handler: incb, ret; restorer: mov, syscall)           5
 *   int3 (the same)                                             5
 *   int $3 (the same)                                           5
 *   movzbl, mov, syscall                                        3
 *   E = H = 26
 */
	.globl _start
	.text
_start:
	cmpq	$1, (%rsp)		/* argc */
	jne	1f
	mov	$13, %eax		/* rt_sigaction(SIGTRAP, &act, NULL, 8) */
	mov	$5, %edi
	lea	act(%rip), %rsi
	xor	%edx, %edx
	mov	$8, %r10d
	syscall
1:	int3
	int3
	.byte	0xcd, 0x03		/* int $3 (as gas would write cc) */
	movzbl	seen(%rip), %edi
	mov	$60, %eax
	syscall
handler:
	incb	seen(%rip)
	ret
restorer:
	mov	$15, %eax		/* rt_sigreturn */
	syscall

	.data
	.align 8
act:	.quad handler, 0x44000000, restorer, 0	/* SA_RESTORER | SA_NODEFER */
seen:	.byte 0
