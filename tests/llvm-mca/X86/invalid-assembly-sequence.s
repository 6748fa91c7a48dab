# RUN: not llvm-mca -mtriple=x86_64-unknown-unknown -mcpu=btver2 %s

invalid_instruction_mnemonic

