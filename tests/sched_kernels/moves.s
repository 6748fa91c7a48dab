movq %rax, %rbx
addq %rbx, %rcx
vmovaps %xmm1, %xmm2
vaddps %xmm2, %xmm3, %xmm3
xorl %edx, %edx
movq %rdx, %rsi
