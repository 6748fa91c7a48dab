movq (%rdi), %rax
movq 8(%rdi), %rbx
addq %rax, %rbx
movq %rbx, (%rsi)
shlq $3, %rbx
cmpq %rbx, %rcx
setne %al
movzbl %al, %edx
