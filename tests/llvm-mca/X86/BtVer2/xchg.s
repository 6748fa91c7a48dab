# RUN: llvm-mca -mtriple=x86_64-unknown-unknown -mcpu=btver2 -iterations=2 -timeline < %s | FileCheck %s

xchg %ecx, (%rsp)
add %ecx, %ecx
add %ecx, %ecx
imul %ecx, %ecx
imul %ecx, %ecx
