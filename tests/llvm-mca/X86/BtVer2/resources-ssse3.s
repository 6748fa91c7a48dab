# RUN: llvm-mca -mtriple=x86_64-unknown-unknown -mcpu=btver2 -instruction-tables < %s | FileCheck %s

palignr     $1, %xmm0, %xmm2
palignr     $1, (%rax), %xmm2

phaddd      %xmm0, %xmm2
phaddd      (%rax), %xmm2

phaddsw     %xmm0, %xmm2
phaddsw     (%rax), %xmm2

phaddw      %xmm0, %xmm2
phaddw      (%rax), %xmm2

phsubd      %xmm0, %xmm2
phsubd      (%rax), %xmm2

phsubsw     %xmm0, %xmm2
phsubsw     (%rax), %xmm2

phsubw      %xmm0, %xmm2
phsubw      (%rax), %xmm2

pmaddubsw   %xmm0, %xmm2
pmaddubsw   (%rax), %xmm2

pmulhrsw    %xmm0, %xmm2
pmulhrsw    (%rax), %xmm2

pshufb      %xmm0, %xmm2
pshufb      (%rax), %xmm2

psignb      %xmm0, %xmm2
psignb      (%rax), %xmm2

psignd      %xmm0, %xmm2
psignd      (%rax), %xmm2

psignw      %xmm0, %xmm2
psignw      (%rax), %xmm2
