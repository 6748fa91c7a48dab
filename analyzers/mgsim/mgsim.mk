## The simulated MGSim counter view (issue 6): Model A and its caches.
libmica_a_SOURCES += \
	analyzers/mgsim/cache_sim.h analyzers/mgsim/cache_sim.c \
	analyzers/mgsim/mgsim.h analyzers/mgsim/mgsim.c
