# RUN: llvm-mca -mtriple=x86_64-unknown-unknown -mcpu=btver2 < %s | FileCheck %s

testloop:
# LLVM-MCA-BEGIN outer
  leal 42(%rdi), %eax
# LLVM-MCA-BEGIN inner
  imull %esi, %eax
# LLVM-MCA-END inner
  leal 42(%rdi), %eax
# LLVM-MCA-END outer
  imull %esi, %eax
