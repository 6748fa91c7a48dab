movq %rax, (%rdi)
movq %rbx, 8(%rdi)
movl %ecx, 16(%rdi)
movq 24(%rsi), %rdx
addq %rdx, %rax
