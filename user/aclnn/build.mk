# user/aclnn: the aclnn operator API in CANN's layout (README.md):
# libnnopbase.so (objects, executor, launch, results) and libopapi.so (the
# operators), glibc only (libm for the computed results), over
# libascendcl.so; `make install-sdk` only.
$(eval $(call component,aclnn))
NN_BASE_OBJS := $(BUILD)/obj/user/aclnn/nn_meta.o $(BUILD)/obj/user/aclnn/nn_exec.o \
                $(BUILD)/obj/user/aclnn/nn_compute.o
NN_OP_OBJS   := $(filter $(BUILD)/obj/user/aclnn/op_%,$(aclnn_OBJS))
NN_BASE      := $(BUILD)/lib/libnnopbase.so
NN_OPAPI     := $(BUILD)/lib/libopapi.so
NN_LIBS      := $(NN_BASE) $(NN_OPAPI) $(NN_CSEC)
product: $(NN_LIBS)

$(NN_BASE): $(NN_BASE_OBJS) $(BUILD)/obj/user/common.a $(RT_ACL)
	$(CC) -shared -Wl,-soname,libnnopbase.so -Wl,--no-undefined -o $@ $(NN_BASE_OBJS) \
		$(BUILD)/obj/user/common.a \
		-L$(BUILD)/lib -lascendcl -lpthread -lm -Wl,-rpath,'$$ORIGIN'
$(NN_OPAPI): $(NN_OP_OBJS) $(NN_BASE)
	$(CC) -shared -Wl,-soname,libopapi.so -Wl,--no-undefined -o $@ $(NN_OP_OBJS) \
		-L$(BUILD)/lib -lnnopbase -lascendcl -Wl,-rpath,'$$ORIGIN'
