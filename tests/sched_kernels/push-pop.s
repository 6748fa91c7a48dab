push %rbx
push %rbp
pop %rbp
pop %rbx
xor %eax, %eax
lea 1(%rax,%rbx,2), %rcx
