# Condition-dependent costs and LLVM's ReadAfterLd exceptions: CMOVA/BE
# and SETA/BE take one uop and one cycle more on Skylake, Haswell and
# Sandy Bridge; a CMOVcc reads its destination; the Intel models' CMOVcc
# memory forms and Sandy Bridge's UCOMISS memory form read their registers
# without the load's head start; a scalar load-op uses the scalar advance.
cmpq %r12, %rbp
cmovaq %r12, %rax
cmovneq 40(%rsp), %rax
setbe %cl
addsd 8(%rsi), %xmm0
ucomiss 4(%r13), %xmm0
cmovbel %ecx, %edx
