# user/recorder: the in-application library (README.md).
# libprofapi.so     the recorder with CANN's reporter ABI and the archives
#                   of the components it uses (only the objects it calls
#                   are pulled in: libc only); exports: libprofapi.map;
#                   RUNPATH $ORIGIN: it dlopens libruntime.so and
#                   libascend_hal.so, found beside it (rtplugin.h)
# libmsprofiler.so  CANN's aclprof*/mstx* library: an ELF filter
#                   (DT_FILTER) over libprofapi.so, so a program linked to
#                   (or ctypes-loading) it runs libprofapi.so's code and
#                   state at no cost per call; its own definitions are
#                   link-time placeholders of the names of libmsprofiler.map
# libms_tools_ext.so  CANN's mstx library name: a filter over libprofapi.so
# libnpuprof_attach.so  the recorder attached to CANN's own libprofapi.so
#                   (attach.c; only there): preloaded by `npuprof record
#                   --attach`; exports nothing (libnpuprof_attach.map)
# Built with -fvisibility=hidden; the API headers (acl_prof.h, ms_tools_ext.h,
# include/profiling) and the version scripts mark
# what may be exported. REC_A is the recorder's archive for white-box tests.
$(eval $(call component,recorder))
$(BUILD)/obj/user/recorder/%.o: CFLAGS += -fvisibility=hidden
REC_ATTACH_O := $(BUILD)/obj/user/recorder/attach.o
recorder_OBJS := $(filter-out $(REC_ATTACH_O),$(recorder_OBJS))
RT_ATTACH   := $(BUILD)/lib/libnpuprof_attach.so
ATTACH_MAP  := user/recorder/libnpuprof_attach.map
REC_A       := $(BUILD)/obj/user/recorder.a
REC_MAP     := user/recorder/libmsprofiler.map
PROFAPI_MAP := user/recorder/libprofapi.map
RT_PROFAPI  := $(BUILD)/lib/libprofapi.so
RT_MSPROF   := $(BUILD)/lib/libmsprofiler.so
RT_MSTX     := $(BUILD)/lib/libms_tools_ext.so
MSTX_FUNCS  := mstxMarkA mstxRangeStartA mstxRangeEnd mstxDomainCreateA mstxDomainDestroy \
               mstxDomainMarkA mstxDomainRangeStartA mstxDomainRangeEnd
product: $(RT_PROFAPI) $(RT_MSPROF) $(RT_MSTX) $(RT_ATTACH)

$(RT_PROFAPI): $(recorder_OBJS) $(call archives,$(call linked,recorder)) $(PROFAPI_MAP)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libprofapi.so -Wl,--no-undefined -Wl,--version-script=$(PROFAPI_MAP) \
		-o $@ $(recorder_OBJS) $(call static,recorder) -Wl,--as-needed -lpthread \
		-Wl,-rpath,'$$ORIGIN'

# the filter's placeholders: every aclprof*/mstx* function libprofapi.so
# exports, and the hooks its version script names
$(RT_MSPROF): $(RT_PROFAPI) $(REC_MAP)
	{ echo '/* placeholders: libprofapi.so (the filtee) provides these */'; \
	  { nm -D --defined-only $(RT_PROFAPI) | awk '$$2 == "T" {print $$3}' | sed 's/@.*//' | \
	    grep -E '^(aclprof|mstx)'; \
	    sed -n 's/^[[:space:]]*\(npuprof_[a-z0-9_]*\);$$/\1/p' $(REC_MAP); } | \
	  sort -u | sed 's/.*/void &(void) {}/'; } | \
		$(CC) -shared -fPIC -Wl,-soname,libmsprofiler.so -Wl,--version-script=$(REC_MAP) \
		-Wl,--filter=libprofapi.so -x c -o $@ - -Wl,-rpath,'$$ORIGIN'

$(RT_MSTX): $(RT_PROFAPI)
	printf '%s\n' '/* placeholders: libprofapi.so (the filtee) provides these */' \
		$(foreach f,$(MSTX_FUNCS),'void $(f)(void) {}') | \
		$(CC) -shared -fPIC -Wl,-soname,libms_tools_ext.so -Wl,--filter=libprofapi.so \
		-x c -o $@ - -Wl,-rpath,'$$ORIGIN'

$(RT_ATTACH): $(REC_ATTACH_O) $(recorder_OBJS) $(call archives,$(call linked,recorder)) $(ATTACH_MAP)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,libnpuprof_attach.so -Wl,--no-undefined \
		-Wl,--version-script=$(ATTACH_MAP) -o $@ $(REC_ATTACH_O) $(recorder_OBJS) \
		$(call static,recorder) -Wl,--as-needed -lpthread
