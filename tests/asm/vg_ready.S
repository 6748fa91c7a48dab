/*
 * A target to kill: write "ready\n", then spin until killed.  The five
 * instructions up to the write's syscall always count; how many of the
 * loop's do depends on when it dies.
 */
	.globl _start
	.text
_start:
	mov	$1, %eax		/* write(1, "ready\n", 6) */
	mov	$1, %edi
	lea	msg(%rip), %rsi
	mov	$6, %edx
	syscall
1:	inc	%rbx
	jmp	1b

	.data
msg:	.ascii "ready\n"
