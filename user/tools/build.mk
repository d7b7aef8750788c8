# user/tools/<name>/: one program each, build/bin/<name> (the folder's
# README says what it is and what it uses).
# npuprof  the profiler's command line, over the tool library (libnpuprof.a)
# npuwork  the sample workloads, over the simulated runtime's libraries
$(eval $(call component,tools/npuprof))
$(eval $(call component,tools/npuwork))
TOOLS := $(BUILD)/bin/npuprof $(BUILD)/bin/npuwork
product: $(TOOLS)

$(BUILD)/bin/npuprof: $(tools/npuprof_OBJS) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(tools/npuprof_OBJS) $(LIB_A) $(LDLIBS)

$(BUILD)/bin/npuwork: $(tools/npuwork_OBJS) $(call archives,$(call linked,tools/npuwork)) $(RT_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(tools/npuwork_OBJS) $(RT_LINK) $(call static,tools/npuwork) -lsqlite3 -lpthread -lm
