# Generates MicroPython's embed tree (py/, shared/, genhdr/, port/) for Prüfstein's consumer
# guest: the embed port's makefile, with `json` (extmod/modjson.c) and the glue scanned for qstrs
# and modules as well. Run by regenerate.sh (MICROPYTHON_TOP, GLUE_DIR and PACKAGE_DIR set).
# SRC_QSTR is set before the include: the qstr rule's prerequisites are expanded where it stands.
SRC_QSTR += $(MICROPYTHON_TOP)/extmod/modjson.c $(GLUE_DIR)/pruefstein.c
CFLAGS += -I$(GLUE_DIR)
include $(MICROPYTHON_TOP)/ports/embed/embed.mk
