/*
 * More REP string instructions.  Hand count:
 *   cld; lea s,%rdi; mov $'X',%al; mov $6,%ecx                 4
 *   repne scasb over "abcXef": stops after the 4th (found)     E 4, H 1
 *   mov $1,%ecx; lea d,%rdi                                    2
 *   rep stosq, count 1                                         E 1, H 1
 *   std; lea s+5,%rsi; lea d+5,%rdi; mov $6,%ecx               4
 *   rep movsb backwards (DF=1), 6 iterations                   E 6, H 1
 *   cld; movabs $0x100000003,%rcx; lea s,%rsi; lea d,%rdi      4
 *   addr32 rep movsb: the count is ECX, 3                      E 3, H 1
 *   xor %ecx,%ecx                                              1
 *   repe cmpsb, zero count                                     E 1, H 0
 *   mov $60,%eax; xor %edi,%edi; syscall                       3
 *   E = 18 + 4+1+6+3+1 = 33, H = 18 + 4 = 22
 */
	.globl _start
	.text
_start:
	cld
	lea	s(%rip), %rdi
	mov	$'X', %al
	mov	$6, %ecx
	repne scasb
	mov	$1, %ecx
	lea	d(%rip), %rdi
	rep stosq
	std
	lea	s+5(%rip), %rsi
	lea	d+5(%rip), %rdi
	mov	$6, %ecx
	rep movsb
	cld
	movabs	$0x100000003, %rcx
	lea	s(%rip), %rsi
	lea	d(%rip), %rdi
	addr32 rep movsb
	xor	%ecx, %ecx
	repe cmpsb
	mov	$60, %eax
	xor	%edi, %edi
	syscall

	.data
s:	.ascii "abcXef"
	.bss
	.align 8
d:	.zero 16
