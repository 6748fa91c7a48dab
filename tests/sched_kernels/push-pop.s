pushq %rbx
pushq %rbp
popq %rbp
popq %rbx
xorl %eax, %eax
leaq 1(%rax,%rbx,2), %rcx
