/* The benchmark's traced program: 50000 x 3 instructions and an exit. */
	.globl _start
	.text
_start:
	mov	$50000, %ecx
1:	add	$3, %rax
	dec	%ecx
	jnz	1b
	mov	$60, %eax
	xor	%edi, %edi
	syscall
