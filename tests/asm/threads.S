/*
 * Two threads with known per-thread counts (raw clone, no libc).
 * Main thread:
 *   clone setup (mov, mov, lea, xor, xor, xor) + syscall     7
 *   test, jz (not taken)                                     2
 *   mov $50,%ecx + 50 x (dec, jnz)                         101
 *   exit(0) of this thread: mov, xor, syscall                3
 *   E = H = 113
 * New thread (starts after the syscall, with rax = 0):
 *   test, jz (taken)                                         2
 *   mov $200,%ecx + 200 x (dec, jnz)                       401
 *   exit(0): mov, xor, syscall                               3
 *   E = H = 406
 */
	.globl _start
	.text
_start:
	mov	$56, %eax		/* clone */
	mov	$0x10f00, %edi		/* VM|FS|FILES|SIGHAND|THREAD */
	lea	stack_top(%rip), %rsi
	xor	%edx, %edx
	xor	%r10d, %r10d
	xor	%r8d, %r8d
	syscall
	test	%rax, %rax
	jz	child
	mov	$50, %ecx
1:	dec	%ecx
	jnz	1b
	mov	$60, %eax
	xor	%edi, %edi
	syscall
child:
	mov	$200, %ecx
2:	dec	%ecx
	jnz	2b
	mov	$60, %eax
	xor	%edi, %edi
	syscall

	.bss
	.align 16
stack:	.zero 4096
stack_top:
