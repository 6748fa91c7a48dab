addq (%rdi), %rax
imulq %rax, %rbx
movq %rbx, 8(%rsi)
decq %rcx
