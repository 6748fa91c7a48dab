/*
 * An AVX2 gather with elements masked off: vpgatherdd loads the elements
 * of tab at the indices of idx whose mask element has its sign bit set
 * (elements 0, 2 and 5 of 8).  Needs AVX2.  Hand count:
 *   lea, vmovdqu, lea, vmovdqu, lea, vpxor, vpgatherdd         7
 *   mov $60,%eax; xor %edi,%edi; syscall                       3
 *   E = H = 10
 */
	.globl _start
	.text
_start:
	lea	idx(%rip), %rax
	vmovdqu	(%rax), %ymm1
	lea	mask(%rip), %rax
	vmovdqu	(%rax), %ymm2
	lea	tab(%rip), %rbx
	vpxor	%ymm0, %ymm0, %ymm0
	vpgatherdd %ymm2, (%rbx,%ymm1,4), %ymm0
	mov	$60, %eax
	xor	%edi, %edi
	syscall

	.data
	.align 32
idx:	.long 7, 1, 30, 3, 2, 17, 6, 0
mask:	.long -1, 0, -1, 0, 0, -1, 0, 0
tab:	.zero 128
