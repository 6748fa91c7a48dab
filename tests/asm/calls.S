/*
 * push/pop/call/ret.  Hand count:
 *   _start: push %rbx; push $5; pop %rbx              3
 *   mov $4,%r12d                                      1
 *   loop x4: call f; dec %r12d; jnz                  3 x 4 = 12
 *     f: push %rbp; mov %rsp,%rbp; call g; pop %rbp; ret   5 x 4 = 20
 *     g: lea 1(%rax),%rax; ret                        2 x 4 = 8
 *   pop %rbx                                          1
 *   mov $60,%eax; mov $0,%edi; syscall                3
 *   E = H = 3+1+12+20+8+1+3 = 48
 */
	.globl _start
	.text
_start:
	push	%rbx
	push	$5
	pop	%rbx
	mov	$4, %r12d
1:	call	f
	dec	%r12d
	jnz	1b
	pop	%rbx
	mov	$60, %eax
	mov	$0, %edi
	syscall
f:	push	%rbp
	mov	%rsp, %rbp
	call	g
	pop	%rbp
	ret
g:	lea	1(%rax), %rax
	ret
