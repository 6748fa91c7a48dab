/*
 * A target for attach/detach: 100 x nanosleep(10 ms) with a little work
 * in between, then write "done\n" and exit 7.  Not hand-counted (how much
 * is traced depends on when micad attaches).
 */
	.globl _start
	.text
_start:
	mov	$100, %r12d
1:	mov	$35, %eax		/* nanosleep(&ts, NULL) */
	lea	ts(%rip), %rdi
	xor	%esi, %esi
	syscall
	mov	$20, %ecx
2:	dec	%ecx
	jnz	2b
	dec	%r12d
	jnz	1b
	mov	$1, %eax		/* write(1, "done\n", 5) */
	mov	$1, %edi
	lea	msg(%rip), %rsi
	mov	$5, %edx
	syscall
	mov	$60, %eax
	mov	$7, %edi
	syscall

	.data
	.align 8
ts:	.quad 0, 10000000
msg:	.ascii "done\n"
