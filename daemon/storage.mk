## The results database: its writer thread, and JSON text for the settings
## column and micactl's outputs.
libmicad_a_SOURCES += \
	daemon/store_writer.h daemon/store_writer.c \
	daemon/store_profile.h daemon/store_profile.c \
	daemon/store_json.h daemon/store_json.c
