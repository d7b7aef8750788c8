# user/hal: libascend_hal.so, the driver's user-space API over npusim
# (README.md): hal.c over the npusim client of user/device; libc only.
# libascendcl.so reaches the device only through it.
$(eval $(call component,hal))
HAL_SO := $(BUILD)/lib/libascend_hal.so
product: $(HAL_SO)

$(HAL_SO): $(hal_OBJS) $(call archives,$(call linked,hal))
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libascend_hal.so -Wl,--no-undefined -o $@ $(hal_OBJS) \
		$(call static,hal) -lpthread
