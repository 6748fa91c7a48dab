# RUN: llvm-mca -mtriple=x86_64-unknown-unknown -mcpu=btver2 -iterations=1 -resource-pressure=false < %s | FileCheck %s

# LLVM-MCA-BEGIN Empty
  # Empty sequence
# LLVM-MCA-END

# LLVM-MCA-BEGIN NotEmpty
  add %edi, %eax
# LLVM-MCA-END
