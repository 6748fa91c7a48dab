# RUN: llvm-mca -mtriple=x86_64-unknown-unknown -mcpu=btver2 -timeline -timeline-max-iterations=1 < %s | FileCheck %s -check-prefixes=ALL,NOALIAS
# RUN: llvm-mca -mtriple=x86_64-unknown-unknown -mcpu=btver2 -timeline -timeline-max-iterations=1 -noalias=false < %s | FileCheck %s -check-prefixes=ALL,YESALIAS

  addq	$44, 64(%r14)
  addq	$44, 128(%r14)
  addq	$44, 192(%r14)
  addq	$44, 256(%r14)
  addq	$44, 320(%r14)
  addq	$44, 384(%r14)
  addq	$44, 448(%r14)
  addq	$44, 512(%r14)
  addq	$44, 576(%r14)
  addq	$44, 640(%r14)
