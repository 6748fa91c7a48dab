/*
 * A target for attach/detach: nanosleep(10 ms) with a little work in
 * between, 100 times; then write "done\n" and exit 7.  Given a path
 * (argv[1]), it goes on until that file exists instead (at most 6000
 * times, a minute), so a test decides when it ends, however slow the
 * machine.  Not hand-counted (how much is traced depends on when micad
 * attaches).
 */
	.globl _start
	.text
_start:
	mov	$100, %r12d
	xor	%r13d, %r13d		/* the path to wait for, or 0 */
	cmpq	$2, (%rsp)		/* argc */
	jb	1f
	mov	16(%rsp), %r13		/* argv[1] */
	mov	$6000, %r12d
1:	mov	$35, %eax		/* nanosleep(&ts, NULL) */
	lea	ts(%rip), %rdi
	xor	%esi, %esi
	syscall
	mov	$20, %ecx
2:	dec	%ecx
	jnz	2b
	test	%r13, %r13
	jz	3f
	mov	$21, %eax		/* access(path, F_OK) */
	mov	%r13, %rdi
	xor	%esi, %esi
	syscall
	test	%eax, %eax
	jz	4f
3:	dec	%r12d
	jnz	1b
4:	mov	$1, %eax		/* write(1, "done\n", 5) */
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
