## micactl mca: llvm-mca-style static analysis of machine code (issue 7).
micactl_SOURCES += client/mca.c
