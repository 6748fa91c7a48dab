mov (%rdi), %rax
mov 8(%rdi), %rbx
add %rax, %rbx
mov %rbx, (%rsi)
shl $3, %rbx
cmp %rbx, %rcx
setne %al
movzbl %al, %edx
