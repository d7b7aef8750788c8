# The device mirror (python/npuprof/sim: mirror.[ch], the package
# npuprof.sim): libnpuprof_mirror.so, plain C over our ACL libraries
# (libascendcl, libopapi, libnnopbase, libmsprofiler in build/lib). Its rpath
# finds them from build/python/npuprof ($ORIGIN/../../lib) and from an
# installed package, <prefix>/lib/python3/dist-packages/npuprof
# ($ORIGIN/../../.. = <prefix>/lib, $ORIGIN/../../../../lib64 = the SDK's).
# Also copies the package npuprof.sim (its torch.distributed modules dist.py
# and hccl.py, the "hccl" backend)
# into the build tree, and builds the unit test that links the library.
# Included from python/python.mk.
ifndef MIRROR_SO
MIRROR_DIR  := $(BUILD)/python/npuprof
MIRROR_SO   := $(MIRROR_DIR)/libnpuprof_mirror.so
MIRROR_SRC  := python/npuprof/sim
MIRROR_OBJ  := $(BUILD)/obj/$(MIRROR_SRC)/mirror.o
MIRROR_PY   := $(patsubst $(MIRROR_SRC)/%,$(MIRROR_DIR)/sim/%,$(wildcard $(MIRROR_SRC)/*.py))
MIRROR_RPATH := -Wl,-rpath,'$$ORIGIN/../../lib' -Wl,-rpath,'$$ORIGIN/../../..' \
                -Wl,-rpath,'$$ORIGIN/../../../../lib64'
$(MIRROR_OBJ): INC = -I$(MIRROR_SRC)

$(MIRROR_SO): $(MIRROR_OBJ) $(NN_LIBS) $(RT_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libnpuprof_mirror.so -Wl,--no-undefined -o $@ $(MIRROR_OBJ) \
		-L$(BUILD)/lib -lopapi -lnnopbase -lascendcl -lmsprofiler -lprofapi -lpthread $(MIRROR_RPATH)

$(MIRROR_OBJ): CFLAGS += -fvisibility=hidden

$(MIRROR_PY): $(MIRROR_DIR)/sim/%: $(MIRROR_SRC)/%
	@mkdir -p $(dir $@)
	cp $< $@

product: $(MIRROR_SO) $(MIRROR_PY)

# the mirror's unit test reads the plan through the library
$(BUILD)/obj/tests/unit/test_mirror.o: INC = $(INC_tests) -I$(MIRROR_SRC)
$(BUILD)/tests/unit/test_mirror: $(BUILD)/obj/tests/unit/test_mirror.o $(UNIT_MAIN) $(MIRROR_SO)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(UNIT_MAIN) -L$(MIRROR_DIR) -lnpuprof_mirror $(RT_LINK) \
		-Wl,-rpath,'$$ORIGIN/../../python/npuprof' $(CHECK_LIBS) -lpthread

# the in-VM test that drives the mirror from C
$(BUILD)/obj/tests/vm/mirror_test.o: INC = $(INC_tests) -I$(MIRROR_SRC)
$(BUILD)/tests/vm/mirror_test: $(BUILD)/obj/tests/vm/mirror_test.o $(MIRROR_SO)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< -L$(MIRROR_DIR) -lnpuprof_mirror $(RT_LINK) -lprofapi \
		-Wl,-rpath,'$$ORIGIN/../../python/npuprof' -lpthread
endif
