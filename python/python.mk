# ---- the Python package npuprof (owner: torch-pkg; python/) ----------------
# build/python/npuprof/  importable with PYTHONPATH=build/python:
#   *.py              python/npuprof/**/*.py, copied
#   _C.so             npuprof.torch's recorder over torch's RecordFunction
#                     (python/npuprof/csrc/torch_ext.cpp), built with g++
#                     against Debian's libtorch-dev and python3-dev; links
#                     libmsprofiler.so (build/lib, rpath $ORIGIN/../../lib)
#                     and, when python/mirror.mk defines it, the device
#                     mirror libnpuprof_mirror.so (next to it, rpath $ORIGIN)
# `make install` copies the package into Debian python3's site directory
# (PY_SITEDIR, default the first of site.getsitepackages(), i.e.
# /usr/local/lib/python3.11/dist-packages).
PY          ?= /usr/bin/python3
CXX         ?= g++
PY_INC      := $(shell $(PY) -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)
PY_SITEDIR  ?= $(shell $(PY) -c 'import site; print(site.getsitepackages()[0])' 2>/dev/null)
PY_BUILD    := $(BUILD)/python
PY_SRCS     := $(shell find python/npuprof -name '*.py')
PY_OUT      := $(PY_SRCS:python/%=$(PY_BUILD)/%)
TORCH_EXT   := $(PY_BUILD)/npuprof/_C.so
TORCH_SRCS  := $(wildcard python/npuprof/csrc/*.cpp)
# NDEBUG as libtorch was built: RecordFunction has debug-only members
TORCH_CXXFLAGS := -O2 -g -std=gnu++17 -fPIC -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
               -DNDEBUG \
               -Iinclude -Iuser/recorder -Ipython/npuprof/csrc -I$(PY_INC) -MMD -MP
TORCH_LIBS  := -L$(BUILD)/lib -lmsprofiler -ltorch_cpu -lc10 \
               -Wl,-rpath,'$$ORIGIN' -Wl,-rpath,'$$ORIGIN/../../lib'

# the device mirror (owner: torch-mirror) defines MIRROR_SO and its rule
-include python/mirror.mk
TORCH_MIRROR_LINK := $(if $(MIRROR_SO),-L$(dir $(MIRROR_SO)) -lnpuprof_mirror)

.PHONY: python
python: $(PY_OUT) $(TORCH_EXT)
user: python

$(PY_BUILD)/%.py: python/%.py
	@mkdir -p $(dir $@)
	cp $< $@

$(BUILD)/obj/python/%.o: python/%.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(TORCH_CXXFLAGS) -c -o $@ $<

$(TORCH_EXT): $(TORCH_SRCS:%.cpp=$(BUILD)/obj/%.o) $(RT_MSPROF) $(MIRROR_SO)
	@mkdir -p $(dir $@)
	$(CXX) -shared -o $@ $(filter %.o,$^) $(TORCH_MIRROR_LINK) $(TORCH_LIBS)

.PHONY: install-python
install-python: python
	@test -n "$(PY_SITEDIR)" || { echo "no site directory from $(PY)" >&2; exit 1; }
	cd $(PY_BUILD) && find npuprof -type f \( -name '*.py' -o -name '*.so' \) | while read -r f; do \
		install -D -m 644 "$$f" "$(DESTDIR)$(PY_SITEDIR)/$$f" || exit 1; done
install: install-python

-include $(shell find $(BUILD)/obj/python -name '*.d' 2>/dev/null)
