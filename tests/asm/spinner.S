/*
 * A target for detaching in the middle of leapfrog stepping: 600 million
 * calls of a two-instruction function (no syscall until the end, so the
 * tracer's int3 is in the code whenever micad is asked to detach), then
 * write "done\n" and exit 7.  Not hand-counted.
 */
	.globl _start
	.text
_start:
	mov	$600000000, %r12
1:	call	f
	dec	%r12
	jnz	1b
	mov	$1, %eax		/* write(1, "done\n", 5) */
	mov	$1, %edi
	lea	msg(%rip), %rsi
	mov	$5, %edx
	syscall
	mov	$60, %eax
	mov	$7, %edi
	syscall
f:	add	$1, %rax
	ret

	.data
msg:	.ascii	"done\n"
