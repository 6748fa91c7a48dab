# RUN: llvm-mca -mtriple=x86_64-unknown-unknown -mcpu=btver2 -all-views -all-stats=false < %s | FileCheck %s

# We don't want to disable the SummaryView if flag -all-stats is set to false.

add %edi, %eax
