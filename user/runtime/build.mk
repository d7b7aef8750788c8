# user/runtime: libascendcl.so, the simulated ACL runtime (README.md), over
# libascend_hal.so (the device) and libprofapi.so (what it reports, through
# CANN's reporter ABI, as CANN's runtime does: rt_prof_cann.c).
# `make install-sdk PREFIX=DIR` lays the runtime out as CANN does
# (dist/install.mk).
$(eval $(call component,runtime))
RT_ACL      := $(BUILD)/lib/libascendcl.so
# libruntime.so: the name under which CANN's libprofapi finds the runtime's
# profiling calls (dlopen + dlsym, user/recorder/rtplugin.h); an ELF filter
# over libascendcl.so, as libmsprofiler.so is over libprofapi.so
RT_RUNTIME  := $(BUILD)/lib/libruntime.so
RT_PLUGIN_FUNCS := rtProfilerTraceEx rtsStreamGetAttribute
RT_ACL_LIBS := -lprofapi -lascend_hal
RT_LIBS     := $(RT_MSPROF) $(RT_ACL) $(RT_RUNTIME) $(RT_PROFAPI) $(RT_MSTX) $(HAL_SO)
# how a program that uses the runtime links it (never libnpuprof.a's
# recorder: the process has one, in libprofapi.so)
RT_LINK      = -L$(BUILD)/lib -lascendcl -lmsprofiler -lascend_hal \
               -Wl,-rpath,'$$ORIGIN/../lib' -Wl,-rpath,'$$ORIGIN/../../lib'
product: $(RT_ACL) $(RT_RUNTIME)

$(RT_ACL): $(runtime_OBJS) $(call archives,$(call linked,runtime)) $(RT_MSPROF) $(HAL_SO) \
		$(RT_PROFAPI)
	$(CC) -shared -Wl,-soname,libascendcl.so -o $@ $(runtime_OBJS) -L$(BUILD)/lib $(RT_ACL_LIBS) \
		$(call static,runtime) -Wl,-rpath,'$$ORIGIN' -lpthread

$(RT_RUNTIME): $(RT_ACL)
	printf '%s\n' '/* placeholders: libascendcl.so (the filtee) provides these */' \
		$(foreach f,$(RT_PLUGIN_FUNCS),'void $(f)(void) {}') | \
		$(CC) -shared -fPIC -Wl,-soname,libruntime.so -Wl,--filter=libascendcl.so \
		-x c -o $@ - -Wl,-rpath,'$$ORIGIN'
