# Locked read-modify-writes: `lock` on the instruction's line is one
# instruction (LLVM's LOCK_ opcodes), `lock` on a line of its own is
# llvm-mca's LOCK_PREFIX instruction before an unlocked one.
lock addl $1, (%rax)
lock incl (%rsi)
lock
addl $1, (%rbx)
lock andq %rcx, (%rdi)
