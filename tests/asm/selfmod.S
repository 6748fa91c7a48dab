/*
 * Code that writes and reads the first byte of the instruction after it,
 * where leapfrog would plant its int3: the write must not be lost under
 * the int3 (nor undone when the int3 moves on), and the read must see the
 * program's byte, not 0xcc.  Leapfrog single-steps such instructions.
 * The text is made writable with mprotect.  Exits with 52 when every
 * patched instruction ran as patched and every read saw the true byte.
 * Hand count:
 *   mprotect: lea, and, mov, mov, mov, syscall                  6
 *   xor, mov $3                                                 2
 *   3 x (movb, mov -> ebx, add, movb, dec, jnz)               18
 *   movw, mov -> ebx, add                                       3
 *   movzbl, mov ecx, cmp, sete, lea                             5
 *   mov, mov ecx, shr, cmp, sete, imul, add                     7
 *   mov %r13d, %edi; mov $60, %eax; syscall                     3
 *   E = H = 44
 */
	.globl _start
	.text
_start:
	lea	_start(%rip), %rdi	/* mprotect(text, 8192, RWX) */
	and	$-4096, %rdi
	mov	$8192, %esi
	mov	$7, %edx
	mov	$10, %eax
	syscall
	xor	%r13d, %r13d
	mov	$3, %r12d
	/* A byte written on the next instruction's first byte: "mov $5,
	 * %eax" (b8) becomes "mov $5, %ebx" (bb); then it is put back. */
1:	movb	$0xbb, 2f(%rip)
2:	mov	$5, %eax
	add	%ebx, %r13d		/* 5 each time */
	movb	$0xb8, 2b(%rip)
	dec	%r12d
	jnz	1b
	/* Two bytes from the instruction's own last byte to the next one's
	 * first (0xbb already there, 0xbb on the b8 after it). */
	movw	$0xbbbb, 3f-1(%rip)
3:	mov	$7, %eax
	add	%ebx, %r13d		/* 7: 22 so far */
	/* A byte read from the next instruction's first byte (b9). */
	movzbl	4f(%rip), %eax
4:	mov	$0, %ecx
	cmp	$0xb9, %eax
	sete	%cl
	lea	(%r13, %rcx, 8), %r13d	/* + 8: 30 */
	/* Four bytes read up to and including the next instruction's first. */
	mov	5f-3(%rip), %eax
5:	mov	$0, %ecx
	shr	$24, %eax
	cmp	$0xb9, %eax
	sete	%cl
	imul	$22, %ecx, %ecx
	add	%ecx, %r13d		/* + 22: 52 */
	mov	%r13d, %edi
	mov	$60, %eax
	syscall
