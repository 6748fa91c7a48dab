/*
 * A conditional branch pattern: for i in 0..9, taken when i is odd.
 * Hand count:
 *   xor %ecx,%ecx; xor %edx,%edx                 2
 *   per iteration: test $1,%cl; jz 2f             2
 *     odd (5 times): inc %edx                     1
 *     2: inc %ecx; cmp $10,%ecx; jne 1b           3
 *   10 x (2 + 3) + 5 = 55
 *   exit: mov %edx,%edi; mov $60,%eax; syscall   3   (exit status 5)
 *   E = H = 2 + 55 + 3 = 60
 */
	.globl _start
	.text
_start:
	xor	%ecx, %ecx
	xor	%edx, %edx
1:	test	$1, %cl
	jz	2f
	inc	%edx
2:	inc	%ecx
	cmp	$10, %ecx
	jne	1b
	mov	%edx, %edi
	mov	$60, %eax
	syscall
