/*
 * FS-relative accesses: FS is set to tls with arch_prctl, then %fs:8 is
 * read and %fs:16 written and read back; exits with what was read (42).
 * Hand count:
 *   mov, mov, lea, syscall (arch_prctl)                        4
 *   mov %fs:8,%rax; mov %rax,%fs:16                            2
 *   mov $60,%eax; mov %fs:16,%edi; syscall                     3
 *   E = H = 9
 */
	.globl _start
	.text
_start:
	mov	$158, %eax		/* arch_prctl(ARCH_SET_FS, tls) */
	mov	$0x1002, %edi
	lea	tls(%rip), %rsi
	syscall
	mov	%fs:8, %rax
	mov	%rax, %fs:16
	mov	$60, %eax
	mov	%fs:16, %edi
	syscall

	.data
	.align 8
tls:	.quad 0, 42, 0
