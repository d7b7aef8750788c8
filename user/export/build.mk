# user/export: from a session directory to the msprof database (README.md).
# Its library is the tool library, libnpuprof (.so and .a): export with
# every component it uses, whole (the tools and the public API of
# include/npuprof/ reach them all through it). No recorder in it: a tool
# linking it never starts recording itself.
$(eval $(call component,export))
LIB_PARTS := export $(call linked,export)
LIB_OBJS  := $(foreach c,$(LIB_PARTS),$($(c)_OBJS))
LIB_SO    := $(BUILD)/lib/libnpuprof.so
LIB_A     := $(BUILD)/lib/libnpuprof.a
LIB_MAP   := user/export/libnpuprof.map
product: $(LIB_SO) $(LIB_A)

$(LIB_A): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(LIB_SO): $(LIB_OBJS) $(LIB_MAP)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,--version-script=$(LIB_MAP) -o $@ $(LIB_OBJS) $(LDLIBS)
