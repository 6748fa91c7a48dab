/*
 * A counted loop.  Hand count (dynamic instructions):
 *   mov $100, %ecx                1
 *   loop body: add, dec, jnz    3 x 100 = 300
 *   mov $60, %eax; xor %edi,%edi; syscall   3
 *   E = H = 304
 */
	.globl _start
	.text
_start:
	mov	$100, %ecx
1:	add	$3, %rax
	dec	%ecx
	jnz	1b
	mov	$60, %eax
	xor	%edi, %edi
	syscall
