## The simulated MGSim counter view (issue 6): Model A and its caches.
libmica_a_SOURCES += \
	analyzers/cache_sim.h analyzers/cache_sim.c \
	analyzers/mgsim.h analyzers/mgsim.c
