# Exchange and compare-exchange with memory: LLVM gives their register
# sources no ReadAfterLd, so a chain through %eax/%ecx costs each
# instruction's full latency (xchg always locks; lock xadd and lock
# cmpxchg are LLVM's LXADD32 / LCMPXCHG32).
xchgl %eax, (%rbx)
xaddl %eax, (%rsi)
lock xaddl %ecx, (%rdi)
lock cmpxchgl %ecx, (%rdx)
addl %ecx, %eax
