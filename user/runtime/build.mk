# user/runtime: libascendcl.so, the simulated ACL runtime (README.md), over
# libascend_hal.so (the device) and the recorder's library (what it
# reports). RT_REPORT picks the backend of its reporting layer (rt_prof.c):
# cann (rt_prof_cann.c, CANN's reporter ABI of libprofapi.so: the default,
# as CANN's runtime reports) or rec (rt_prof_rec.c, libmsprofiler.so's
# private host records). The other backend is compiled too, apart in
# obj-alt/, so that it stays buildable, but not linked.
# `make install-sdk PREFIX=DIR` lays the runtime out as CANN does
# (dist/install.mk).
$(eval $(call component,runtime))
RT_REPORT   ?= cann
RT_BACKENDS := rec cann
runtime_OBJS := $(filter-out $(patsubst %,$(BUILD)/obj/user/runtime/rt_prof_%.o,$(filter-out $(RT_REPORT),$(RT_BACKENDS))),$(runtime_OBJS))
RT_OTHER_BACKENDS := $(patsubst %,$(BUILD)/obj-alt/user/runtime/rt_prof_%.o,$(filter-out $(RT_REPORT),$(RT_BACKENDS)))
RT_ACL      := $(BUILD)/lib/libascendcl.so
# libruntime.so: the name under which CANN's libprofapi finds the runtime's
# profiling calls (dlopen + dlsym, user/recorder/rtplugin.h); an ELF filter
# over libascendcl.so, as libmsprofiler.so is over libprofapi.so
RT_RUNTIME  := $(BUILD)/lib/libruntime.so
RT_PLUGIN_FUNCS := rtProfilerTraceEx rtsStreamGetAttribute
RT_ACL_LIBS := $(if $(filter cann,$(RT_REPORT)),-lprofapi,-lmsprofiler) -lascend_hal
RT_LIBS     := $(RT_MSPROF) $(RT_ACL) $(RT_RUNTIME) $(RT_PROFAPI) $(RT_MSTX) $(HAL_SO)
# how a program that uses the runtime links it (never libnpuprof.a's
# recorder: the process has one, in libprofapi.so)
RT_LINK      = -L$(BUILD)/lib -lascendcl -lmsprofiler -lascend_hal \
               -Wl,-rpath,'$$ORIGIN/../lib' -Wl,-rpath,'$$ORIGIN/../../lib'
product: $(RT_ACL) $(RT_RUNTIME) $(RT_OTHER_BACKENDS)

$(BUILD)/obj-alt/user/runtime/%.o: user/runtime/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(INC_runtime) -c -o $@ $<

$(RT_ACL): $(runtime_OBJS) $(call archives,$(call linked,runtime)) $(RT_MSPROF) $(HAL_SO) \
		$(if $(filter cann,$(RT_REPORT)),$(RT_PROFAPI))
	$(CC) -shared -Wl,-soname,libascendcl.so -o $@ $(runtime_OBJS) -L$(BUILD)/lib $(RT_ACL_LIBS) \
		$(call static,runtime) -Wl,-rpath,'$$ORIGIN' -lpthread

$(RT_RUNTIME): $(RT_ACL)
	printf '%s\n' '/* placeholders: libascendcl.so (the filtee) provides these */' \
		$(foreach f,$(RT_PLUGIN_FUNCS),'void $(f)(void) {}') | \
		$(CC) -shared -fPIC -Wl,-soname,libruntime.so -Wl,--filter=libascendcl.so \
		-x c -o $@ - -Wl,-rpath,'$$ORIGIN'
