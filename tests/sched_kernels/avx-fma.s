vmulps %ymm0, %ymm1, %ymm2
vaddps (%rdi), %ymm2, %ymm3
vfmadd231ps %ymm3, %ymm4, %ymm5
vmovaps %ymm5, (%rsi)
addq $32, %rdi
addq $32, %rsi
