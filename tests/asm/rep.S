/*
 * REP string instructions with known counts.  Hand count:
 *   lea src,%rsi; lea dst,%rdi; mov $5,%ecx        3        (E 3, H 3)
 *   rep movsb, rcx=5: 5 iterations                 E 5, H 1
 *   lea dst,%rdi; mov $7,%ecx; xor %eax,%eax       3        (E 3, H 3)
 *   rep stosb, rcx=7                               E 7, H 1
 *   xor %ecx,%ecx                                  1
 *   rep stosb, rcx=0 (zero count)                  E 1, H 0
 *   lea src,%rsi; lea dst2,%rdi; mov $8,%ecx       3
 *   repe cmpsb, rcx=8, strings differ at index 3:
 *     stops after the 4th iteration                E 4, H 1
 *   mov $3,%ecx                                    1
 *   rep movsq (3 iterations)                       E 3, H 1
 *   mov $60,%eax; xor %edi,%edi; syscall           3
 *   E = 3+5+3+7+1+1+3+4+1+3+3 = 34
 *   H = 3+1+3+1+1+0+3+1+1+1+3 = 18
 */
	.globl _start
	.text
_start:
	lea	src(%rip), %rsi
	lea	dst(%rip), %rdi
	mov	$5, %ecx
	rep movsb
	lea	dst(%rip), %rdi
	mov	$7, %ecx
	xor	%eax, %eax
	rep stosb
	xor	%ecx, %ecx
	rep stosb
	lea	src(%rip), %rsi
	lea	dst2(%rip), %rdi
	mov	$8, %ecx
	repe cmpsb
	mov	$3, %ecx
	rep movsq
	mov	$60, %eax
	xor	%edi, %edi
	syscall

	.data
src:	.ascii "abcdefghijklmnopqrstuvwxyz012345"
dst2:	.ascii "abcXefgh"
	.bss
dst:	.zero 64
