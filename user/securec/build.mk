# user/securec: libc_sec.so, the securec functions CANN's samples call
# (README.md); libc only, `make install-sdk` only
$(eval $(call component,securec))
NN_CSEC := $(BUILD)/lib/libc_sec.so
product: $(NN_CSEC)

$(NN_CSEC): $(securec_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libc_sec.so -Wl,--no-undefined -o $@ $^
