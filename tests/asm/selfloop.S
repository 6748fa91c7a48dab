/*
 * One-instruction loops: an instruction whose successor is itself.
 * Leapfrog cannot plant its int3 there (it would sit on the instruction
 * the thread is about to run, and the iterations would not be told apart):
 * it single-steps them.  Exits with 7.  Hand count:
 *   mov $1000, %ecx; 1000 x loop 1b (999 taken)               1001
 *   mov $1, %ecx; loop 2b once (falls through)                   2
 *   xor (ZF = 1), mov $3, %ecx; 3 x loopz 3b                     5
 *   cmp (ZF = 0), mov $5, %ecx; loopz 4b once (ZF = 0: out)      3
 *   mov $7, %edi; mov $60, %eax; syscall                        3
 *   E = H = 1014
 */
	.globl _start
	.text
_start:
	mov	$1000, %ecx
1:	loop	1b
	mov	$1, %ecx
2:	loop	2b
	xor	%eax, %eax
	mov	$3, %ecx
3:	loopz	3b
	cmp	$1, %eax
	mov	$5, %ecx
4:	loopz	4b
	mov	$7, %edi
	mov	$60, %eax
	syscall
