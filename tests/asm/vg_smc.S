/*
 * Self-modifying code: a function written into a read/write/execute page
 * at a fixed address (the same under both engines) (mov 0(%rdi),%eax; ret) is called, rewritten in place to read 8(%rdi),
 * called again, then replaced by a shorter one (xor %eax,%eax; ret) and
 * called a third time.  Exits with the sum of what the calls returned,
 * 1 + 2 + 0 = 3.  Hand count:
 *   mmap: mov x 7, syscall                                     8
 *   mov %rax,%rbx; movl (the function); lea data,%rdi          3
 *   call; mov 0(%rdi),%eax; ret; mov %eax,%r12d                4
 *   movb (disp 8); call; mov 8(%rdi),%eax; ret; add            5
 *   movl (the new function); call; xor; ret; add               5
 *   mov %r12d,%edi; mov $60,%eax; syscall                      3
 *   E = H = 28
 */
	.globl _start
	.text
_start:
	mov	$9, %eax		/* mmap(0x20000000, 4096, RWX, PRIVATE|ANON|FIXED, -1, 0) */
	mov	$0x20000000, %edi
	mov	$4096, %esi
	mov	$7, %edx
	mov	$0x32, %r10d
	mov	$-1, %r8
	xor	%r9d, %r9d
	syscall
	mov	%rax, %rbx
	movl	$0xc300478b, (%rbx)	/* 8b 47 00 c3: mov 0(%rdi),%eax; ret */
	lea	data(%rip), %rdi
	call	*%rbx
	mov	%eax, %r12d
	movb	$8, 2(%rbx)		/* mov 8(%rdi),%eax */
	call	*%rbx
	add	%eax, %r12d
	movl	$0x90c3c031, (%rbx)	/* 31 c0 c3: xor %eax,%eax; ret */
	call	*%rbx
	add	%eax, %r12d
	mov	%r12d, %edi
	mov	$60, %eax
	syscall

	.data
	.align 8
data:	.long 1, 0, 2, 0
