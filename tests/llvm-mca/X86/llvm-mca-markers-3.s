# RUN: llvm-mca -mtriple=x86_64-unknown-unknown -mcpu=btver2 -iterations=1 -resource-pressure=false < %s | FileCheck %s

  add %esi, %edi
# LLVM-MCA-BEGIN foo
  add %edi, %eax
