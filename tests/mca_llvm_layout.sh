#!/bin/sh
# The default (corrected) model on LLVM's llvm-mca X86 tests: the same
# report layout as llvm-mca-14's (sections, columns, names), with its own
# numbers; and --model=llvm's byte-for-byte agreement again.  See
# tests/mca_llvm_corpus.sh.
CORPUS_DEFAULT_MODEL=1
export CORPUS_DEFAULT_MODEL
exec sh "$top_srcdir/tests/mca_llvm_corpus.sh"
