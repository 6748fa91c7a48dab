add (%rdi), %rax
imul %rax, %rbx
mov %rbx, 8(%rsi)
dec %rcx
