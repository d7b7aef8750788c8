# ---- the tests and benchmarks (tests/README.md): `make tests` -------------
# unit        tests/unit/test_*.c -> build/tests/unit/test_* (one Check binary
#             each; tests/unit/check_main.c is their one main())
# vm          tests/vm/*.c -> build/tests/vm/* (run inside the test VM)
# bench       tests/bench/*.c -> build/tests/bench/*
# dbgen       build/tests/bin/dbgen (synthetic databases; tests/gen)
# Test programs see every component's headers. White-box tests link the
# recorder's archive, the generators and libnpuprof.a; programs that use
# the runtime link its shared libraries (RT_LINK), so that the process has
# one recorder.
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lrt -lm -lpthread)
INC_tests  := -Itests/gen $(foreach c,$(filter-out tools/%,$(COMPONENTS)),-Iuser/$(c)) $(BPF_INC)
$(BUILD)/obj/tests/%.o: INC = $(INC_tests)

GEN_OBJS   := $(BUILD)/obj/tests/gen/dbgen.o
UNIT_MAIN  := $(BUILD)/obj/tests/unit/check_main.o
UNIT_BINS  := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(wildcard tests/unit/test_*.c))
VM_BINS    := $(patsubst tests/vm/%.c,$(BUILD)/tests/vm/%,$(wildcard tests/vm/*.c))
BENCH_BINS := $(patsubst tests/bench/%.c,$(BUILD)/tests/bench/%,$(wildcard tests/bench/*.c))
TEST_TOOLS := $(BUILD)/tests/bin/dbgen
TEST_LINK   = $(REC_A) $(GEN_OBJS) $(LIB_A)
tests: $(UNIT_BINS) $(VM_BINS) $(BENCH_BINS) $(TEST_TOOLS)

$(BUILD)/tests/unit/test_%: $(BUILD)/obj/tests/unit/test_%.o $(UNIT_MAIN) $(REC_A) $(GEN_OBJS) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(filter $(tools/npuprof_OBJS),$^) $(UNIT_MAIN) $(TEST_LINK) $(CHECK_LIBS) $(LDLIBS)
$(BUILD)/tests/bin/dbgen: $(BUILD)/obj/tests/gen/dbgen_main.o $(GEN_OBJS) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDLIBS)
$(BUILD)/tests/vm/%: $(BUILD)/obj/tests/vm/%.o $(REC_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(TEST_LINK) $(LDLIBS)
$(BUILD)/tests/bench/%: $(BUILD)/obj/tests/bench/%.o $(REC_A) $(GEN_OBJS) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(TEST_LINK) $(LDLIBS)

# tests of the profiling library's calls into the runtime and the driver
# link stand-ins for both (tests/unit/fake_runtime.h) under the sonames the
# library dlopens, libruntime.so and libascend_hal.so: already loaded, they
# are what a dlopen by that name returns, whatever the search path (a
# sanitizer's dlopen interceptor does not search the test's RUNPATH)
FAKE_RT       := $(BUILD)/tests/fake/libruntime.so
FAKE_HAL      := $(BUILD)/tests/fake/libascend_hal.so
FAKE_RT_TESTS := $(patsubst %,$(BUILD)/tests/unit/%,test_aclprof test_apisession test_mstx test_profapi)
$(FAKE_RT): tests/unit/fake_runtime.c tests/unit/fake_runtime.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared -Wl,-soname,libruntime.so -o $@ $<
$(FAKE_HAL): tests/unit/fake_runtime.c tests/unit/fake_runtime.h $(FAKE_RT)
	$(CC) $(CFLAGS) -DFAKE_HAL -shared -Wl,-soname,libascend_hal.so -o $@ $< \
		-L$(dir $@) -lruntime
$(FAKE_RT_TESTS): $(FAKE_RT) $(FAKE_HAL)
$(FAKE_RT_TESTS): LDLIBS += -L$(BUILD)/tests/fake -Wl,--no-as-needed -lruntime -lascend_hal \
	-Wl,--as-needed -Wl,-rpath,'$$ORIGIN/../fake'

# tests of the npuprof tool's parts link those parts
TOOL_OBJ = $(BUILD)/obj/user/tools/npuprof/$(1).o
$(BUILD)/obj/tests/unit/test_jobsplit.o $(BUILD)/obj/tests/unit/test_tracker.o: INC = $(INC_tests) -Iuser/tools/npuprof
$(BUILD)/obj/tests/fuzz/%.o: INC = $(INC_tests) -Iuser/tools/npuprof
$(BUILD)/tests/unit/test_jobsplit: $(call TOOL_OBJ,jobsplit)
$(BUILD)/tests/unit/test_tracker: $(call TOOL_OBJ,tracker)

# programs over the runtime's shared libraries; rt_* read back what the
# runtime recorded with the decoder of libnpuprof.a
$(BUILD)/tests/vm/rt_%: $(BUILD)/obj/tests/vm/rt_%.o $(RT_LIBS) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(LIB_A) $(RT_LINK) $(LDLIBS)
$(BUILD)/tests/unit/test_runtime%: $(BUILD)/obj/tests/unit/test_runtime%.o $(UNIT_MAIN) $(RT_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(UNIT_MAIN) $(RT_LINK) $(CHECK_LIBS) -lpthread
# the stamp calls as an application meets them: through libmsprofiler.so;
# the report calls as CANN's components make them: into libprofapi.so
$(BUILD)/tests/bench/bench_mstx: $(BUILD)/obj/tests/bench/bench_mstx.o $(RT_LIBS) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(LIB_A) $(RT_LINK) -lprofapi $(LDLIBS)
# test_aclnn reads the executors' plans (nn_internal.h) through the libraries
$(BUILD)/tests/unit/test_aclnn: $(BUILD)/obj/tests/unit/test_aclnn.o $(UNIT_MAIN) $(NN_LIBS) $(RT_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(UNIT_MAIN) -L$(BUILD)/lib -lopapi -lnnopbase -lc_sec $(RT_LINK) $(CHECK_LIBS) -lpthread
# the CANN backend of the reporting layer over this test's side of the ABI
RT_CANN_O := $(BUILD)/obj/user/runtime/rt_prof_cann.o
$(BUILD)/tests/unit/test_rt_report: $(BUILD)/obj/tests/unit/test_rt_report.o $(UNIT_MAIN) \
		$(BUILD)/obj/user/runtime/rt_prof.o $(RT_CANN_O)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(CHECK_LIBS) -ldl -lpthread
# test_profapi_abi dlopens the built libprofapi.so: no recorder of its own
$(BUILD)/tests/unit/test_profapi_abi: $(BUILD)/obj/tests/unit/test_profapi_abi.o $(UNIT_MAIN) $(RT_LIBS)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(UNIT_MAIN) $(CHECK_LIBS) -ldl
# cann_app reports as CANN's components do, built against include/profiling
# only and linked to libprofapi.so; test_cannrec_e2e runs it and exports
CANN_APP := $(BUILD)/tests/profapi/cann_app
$(CANN_APP): tests/profapi/cann_app.c $(wildcard include/profiling/*.h) $(RT_PROFAPI)
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Iinclude/profiling -o $@ $< -L$(BUILD)/lib -lprofapi \
		-Wl,-rpath,'$$ORIGIN/../../lib' -lpthread
# a stand-in for CANN's own libprofapi.so (its collector route), for
# cann_app under libnpuprof_attach.so
CANN_PROFAPI := $(BUILD)/tests/cannlib/libprofapi.so
$(CANN_PROFAPI): tests/profapi/cann_profapi.c $(wildcard include/profiling/*.h)
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -fPIC -shared -Iinclude/profiling \
		-Wl,-soname,libprofapi.so -o $@ $< -lpthread
$(BUILD)/tests/unit/test_cannrec_e2e: $(CANN_APP) $(CANN_PROFAPI) $(RT_ATTACH)
# the HAL: its host test (argument checks, no device) and its in-VM test
$(BUILD)/tests/unit/test_hal: $(BUILD)/obj/tests/unit/test_hal.o $(UNIT_MAIN) $(HAL_SO)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(UNIT_MAIN) -L$(BUILD)/lib -lascend_hal -Wl,-rpath,'$$ORIGIN/../../lib' \
		$(CHECK_LIBS) -lpthread
$(BUILD)/tests/vm/hal_test: $(BUILD)/obj/tests/vm/hal_test.o $(HAL_SO) $(BUILD)/obj/user/device.a
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< -L$(BUILD)/lib -lascend_hal $(BUILD)/obj/user/device.a \
		-Wl,-rpath,'$$ORIGIN/../../lib' -lpthread

# install-sdk, then a CANN-style CMake sample built against it (tests/sdk)
.PHONY: sdk-check
sdk-check: product
	./tests/sdk/run.sh

# ---- sanitizers: the unit tests and the host tools' shell tests again, built
# with ASan+UBSan in $(BUILD)/asan. A sanitizer report (leaks included) or a
# compiler warning fails the run; UBSan does not recover.
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_ENV   := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1 \
             UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
.PHONY: asan-check asan-build
asan-build:
	CFLAGS="-O2 -g -Werror" $(MAKE) BUILD=$(BUILD)/asan CC="$(CC) $(SAN_FLAGS)" \
		$(patsubst $(BUILD)/%,$(BUILD)/asan/%,$(UNIT_BINS) $(TOOLS) $(TEST_TOOLS))
asan-check: asan-build
	$(SAN_ENV) BUILD=$(BUILD)/asan ./scripts/run-unit.sh

# ---- fuzzing (tests/fuzz, README there): libFuzzer harnesses, the library
# built again with clang, ASan and UBSan in $(BUILD)/fuzz.
#   make fuzz [FUZZ_SECONDS=N]   every harness for N seconds (default 60)
#   make fuzz-check              every harness for FUZZ_CHECK_SECONDS (4) on
#                                the committed corpus, part of make check
FUZZ_CC       ?= clang
FUZZ_SAN      := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_BINS     := $(patsubst tests/fuzz/%.c,$(BUILD)/tests/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SECONDS  ?= 60
FUZZ_CHECK_SECONDS ?= 4
# the option harness links the capture options of the npuprof tool
$(BUILD)/tests/fuzz/fuzz_options: $(call TOOL_OBJ,capture) $(call TOOL_OBJ,throttle)
$(BUILD)/tests/fuzz/%: $(BUILD)/obj/tests/fuzz/%.o $(REC_A) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) -fsanitize=fuzzer -o $@ $(filter %.o,$^) $(REC_A) $(LIB_A) $(LDLIBS)
.PHONY: fuzz fuzz-check fuzz-build fuzz-bins
fuzz-bins: $(FUZZ_BINS)
fuzz-build:
	CFLAGS="-O1 -g" $(MAKE) BUILD=$(BUILD)/fuzz CC="$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer-no-link" \
		fuzz-bins
fuzz: fuzz-build
	./scripts/run-fuzz.sh $(BUILD)/fuzz $(FUZZ_SECONDS)
fuzz-check: fuzz-build
	./scripts/run-fuzz.sh $(BUILD)/fuzz $(FUZZ_CHECK_SECONDS)
