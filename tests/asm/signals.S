/*
 * Signal handlers for SIGUSR1 (sent to itself) and SIGALRM (a 20 ms
 * timer, waited for with pause()); exits with the mask of signals seen
 * (3 when both handlers ran).  Hand count:
 *   two rt_sigaction calls: 2 x 6                           12
 *   getpid (2), kill (4)                                     6
 *     SIGUSR1 handler: orb, ret; restorer: mov, syscall      4
 *   setitimer: mov, xor, lea, xor, syscall                   5
 *   pause loop, once: mov, syscall (interrupted)             2
 *     SIGALRM handler + restorer                             4
 *     testb, jz (not taken)                                  2
 *   exit(seen): movzbl, mov, syscall                         3
 *   E = H = 38
 */
	.globl _start
	.text
_start:
	mov	$13, %eax		/* rt_sigaction(SIGUSR1, &act1, NULL, 8) */
	mov	$10, %edi
	lea	act1(%rip), %rsi
	xor	%edx, %edx
	mov	$8, %r10d
	syscall
	mov	$13, %eax		/* rt_sigaction(SIGALRM, &act2, NULL, 8) */
	mov	$14, %edi
	lea	act2(%rip), %rsi
	xor	%edx, %edx
	mov	$8, %r10d
	syscall
	mov	$39, %eax		/* getpid */
	syscall
	mov	%eax, %edi		/* kill(pid, SIGUSR1) */
	mov	$10, %esi
	mov	$62, %eax
	syscall
	mov	$38, %eax		/* setitimer(ITIMER_REAL, &itv, NULL) */
	xor	%edi, %edi
	lea	itv(%rip), %rsi
	xor	%edx, %edx
	syscall
1:	mov	$34, %eax		/* pause */
	syscall
	testb	$2, seen(%rip)
	jz	1b
	movzbl	seen(%rip), %edi
	mov	$60, %eax
	syscall
h1:	orb	$1, seen(%rip)
	ret
h2:	orb	$2, seen(%rip)
	ret
restorer:
	mov	$15, %eax		/* rt_sigreturn */
	syscall

	.data
	.align 8
act1:	.quad h1, 0x04000000, restorer, 0	/* SA_RESTORER */
act2:	.quad h2, 0x04000000, restorer, 0
itv:	.quad 0, 0, 0, 20000			/* it_interval 0, it_value 20 ms */
seen:	.byte 0
