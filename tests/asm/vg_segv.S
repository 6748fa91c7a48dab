/*
 * Dies of SIGSEGV: three instructions, then a store to address 0, which
 * faults and so does not count (it never completed).  Hand count:
 *   mov, mov, add                                              3
 *   E = H = 3, killed by signal 11
 */
	.globl _start
	.text
_start:
	mov	$5, %eax
	mov	$7, %ecx
	add	%ecx, %eax
	movl	%eax, 0
	mov	$60, %eax
	xor	%edi, %edi
	syscall
