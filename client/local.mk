bin_PROGRAMS += micactl
micactl_SOURCES = client/micactl.c
micactl_LDADD = libmicad.a $(MICA_LIBS) $(AX_PTHREAD_LIBS)
include client/mca.mk
include client/ctl.mk
include client/export.mk
