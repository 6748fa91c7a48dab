/*
 * A futex wait by one thread while the other runs a counted loop (raw
 * clone, no libc), for MGSim's counter 12.  The main thread creates a
 * thread with CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID on the word
 * ctid (as pthread_create does), then waits for it the way pthread_join
 * does: FUTEX_WAIT on ctid while it holds the thread's tid.  The thread
 * counts down 5000 and exits; the kernel then clears ctid and wakes the
 * waiter (a shared FUTEX_WAKE, so the wait is a shared FUTEX_WAIT too).
 * Before the clone, while it is alone, the main thread makes a FUTEX_WAIT
 * that does not block (ctid is 0, not the expected 1: EAGAIN at once):
 * counter 12 must not count it.
 * Main thread:
 *   lea, xor, mov, xor, mov + syscall (label nowait_call)      6
 *   clone setup (mov, mov, lea, lea, lea, xor) + syscall      7
 *   test, jz (not taken)                                       2
 *   per futex call: mov, test, jz (not taken), lea, xor, xor,
 *     mov, syscall (label futex_call), jmp                     9
 *   after the wake: mov, test, jz (taken)                      3
 *   exit_group(0): mov, xor, syscall                           3
 *   E = H = 30 with one futex call (the usual case; one more
 *   call, 9 more, if the thread changed ctid in between)
 * New thread (starts after the clone syscall, with rax = 0):
 *   test, jz (taken)                                           2
 *   mov $5000,%ecx + 5000 x (dec, jnz)                     10001
 *   exit(0): mov, xor, syscall                                 3
 *   E = H = 10006
 * The wait covers the thread's whole run but the few instructions it
 * ran before the main thread got to futex_call.
 */
	.globl _start
	.globl futex_call
	.globl nowait_call
	.text
_start:
	lea	ctid(%rip), %rdi
	xor	%esi, %esi		/* FUTEX_WAIT (shared) */
	mov	$1, %edx		/* val 1, but ctid is 0: EAGAIN */
	xor	%r10d, %r10d
	mov	$202, %eax		/* futex */
nowait_call:
	syscall
	mov	$56, %eax		/* clone */
	mov	$0x310f00, %edi		/* VM|FS|FILES|SIGHAND|THREAD|PARENT_SETTID|CHILD_CLEARTID */
	lea	stack_top(%rip), %rsi
	lea	ctid(%rip), %rdx	/* parent_tid */
	lea	ctid(%rip), %r10	/* child_tid */
	xor	%r8d, %r8d
	syscall
	test	%rax, %rax
	jz	child
1:	mov	ctid(%rip), %edx	/* val: the tid while the thread lives */
	test	%edx, %edx
	jz	2f
	lea	ctid(%rip), %rdi
	xor	%esi, %esi		/* FUTEX_WAIT (shared) */
	xor	%r10d, %r10d		/* no timeout */
	mov	$202, %eax		/* futex */
futex_call:
	syscall
	jmp	1b
2:	mov	$231, %eax		/* exit_group */
	xor	%edi, %edi
	syscall
child:
	mov	$5000, %ecx
3:	dec	%ecx
	jnz	3b
	mov	$60, %eax		/* exit */
	xor	%edi, %edi
	syscall

	.data
	.align 4
ctid:	.long 0

	.bss
	.align 16
stack:	.zero 4096
stack_top:
