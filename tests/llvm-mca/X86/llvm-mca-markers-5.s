# RUN: llvm-mca -mtriple=x86_64-unknown-unknown -mcpu=btver2 -iterations=1 -resource-pressure=false < %s | FileCheck %s

  add %ecx, %esi
# LLVM-MCA-BEGIN First Region
  add %edi, %esi
# LLVM-MCA-END
# LLVM-MCA-BEGIN Second Region
  add %esi, %edx
# LLVM-MCA-END
# LLVM-MCA-BEGIN Third Region
  add %edx, %eax
# LLVM-MCA-END
  add %esi, %eax
