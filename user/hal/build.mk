# ---- libascend_hal.so: the driver's user-space API over npusim (user/hal) ----
# Included at the end of the top-level Makefile. The library is user/hal/
# hal.c over the npusim client (user/device/npusim_dev.c, one copy, linked
# here); libascendcl.so reaches the device only through it, so the client
# leaves the runtime's objects and the SQE builders (npusim_sqe.c, no
# device access) take its place there. Programs that use the runtime link
# it with the runtime (RT_LINK) and install-sdk lays it out in lib64
# (RT_LIBS).
HAL_SO   := $(BUILD)/lib/libascend_hal.so
HAL_OBJS := $(BUILD)/obj/user/hal/hal.o $(BUILD)/obj/user/device/npusim_dev.o
INC_hal  := -Iuser/hal -Iuser/device $(INC_common)
$(BUILD)/obj/user/hal/%.o: INC = $(INC_hal)

$(HAL_SO): $(HAL_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libascend_hal.so -Wl,--no-undefined -o $@ $(HAL_OBJS) -lpthread

RT_OBJS := $(filter-out $(BUILD)/obj/user/device/npusim_dev.o,$(RT_OBJS)) \
           $(BUILD)/obj/user/device/npusim_sqe.o
RT_ACL_LIBS += -lascend_hal
$(RT_ACL): $(HAL_SO) $(BUILD)/obj/user/device/npusim_sqe.o
RT_LIBS  += $(HAL_SO)
RT_LINK  += -lascend_hal
user: $(HAL_SO)

# the HAL's host test: argument checks and error codes, no device
$(BUILD)/tests/unit/test_hal: $(BUILD)/obj/tests/unit/test_hal.o $(UNIT_MAIN) $(HAL_SO)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(UNIT_MAIN) -L$(BUILD)/lib -lascend_hal -Wl,-rpath,'$$ORIGIN/../../lib' \
		$(CHECK_LIBS) -lpthread

# the in-VM test of the HAL on npusim (tests/vm/suite_40_runtime.sh)
$(BUILD)/tests/vm/hal_test: $(BUILD)/obj/tests/vm/hal_test.o $(HAL_SO) \
		$(BUILD)/obj/user/device/npusim_sqe.o
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(BUILD)/obj/user/device/npusim_sqe.o -L$(BUILD)/lib -lascend_hal \
		-Wl,-rpath,'$$ORIGIN/../../lib' -lpthread
