# RUN: llvm-mca -mtriple=x86_64-unknown-unknown -mcpu=btver2 < %s | FileCheck %s

testloop:
# LLVM-MCA-BEGIN upper
  leal 42(%rdi), %eax
# LLVM-MCA-BEGIN lower
  imull %esi, %eax
# LLVM-MCA-END upper
  leal 42(%rdi), %eax
# LLVM-MCA-END lower
  imull %esi, %eax
