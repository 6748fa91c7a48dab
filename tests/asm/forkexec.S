/*
 * fork, then the child execs argv[1] (with argv[1..]) and the parent waits
 * and exits with the child's exit status.  Hand count, parent:
 *   mov $57,%eax; syscall (fork)                              2
 *   test, jz (not taken)                                      2
 *   wait4(-1, &status, 0, NULL): mov, mov, lea, xor, xor, syscall   6
 *   movzbl status+1, mov, syscall                             3
 *   E = H = 13
 * Child before the exec (starts after the fork syscall):
 *   test, jz (taken)                                          2
 *   mov 16(%rsp),%rdi; lea 16(%rsp),%rsi; xor %edx,%edx; mov $59,%eax; syscall   5
 *   E = H = 7, then the exec'd program's own instructions
 */
	.globl _start
	.text
_start:
	mov	$57, %eax		/* fork */
	syscall
	test	%rax, %rax
	jz	child
	mov	$61, %eax		/* wait4(-1, &status, 0, NULL) */
	mov	$-1, %rdi
	lea	status(%rip), %rsi
	xor	%edx, %edx
	xor	%r10d, %r10d
	syscall
	movzbl	status+1(%rip), %edi
	mov	$60, %eax
	syscall
child:
	mov	16(%rsp), %rdi		/* execve(argv[1], &argv[1], NULL) */
	lea	16(%rsp), %rsi
	xor	%edx, %edx
	mov	$59, %eax
	syscall
	mov	$127, %edi
	mov	$60, %eax
	syscall

	.bss
status:	.zero 4
