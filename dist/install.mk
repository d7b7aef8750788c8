# ---- installing (included from the Makefile) ---------------------------------
# make install, make install-dkms
#   make install [PREFIX=/usr/local] [DESTDIR=]  tools (build/bin), the tool
#       library (libnpuprof.so, .a), the in-app recorder (libmsprofiler.so)
#       and its attach library (libnpuprof_attach.so, which `npuprof record`
#       finds beside it in ../lib when a program keeps CANN's libprofapi.so),
#       public headers (include/{acl,npuprof,uapi}) and
#       $(LIBDIR)/pkgconfig/npuprof.pc made from npuprof.pc.in. Never the
#       simulated runtime (libascendcl.so, libprofapi.so): on an Ascend host
#       it would shadow CANN's; only `make install-sdk` lays that out.
#   make install-dkms [DESTDIR=]  the module sources and dkms.conf in
#       /usr/src/npuprof-$(VERSION)/; then `dkms install npuprof/$(VERSION)`
# The version lives in one place: the VERSION file.
VERSION      := $(shell cat VERSION 2>/dev/null)
# PREFIX itself stays unset unless given (install-sdk requires it explicitly).
INST_PREFIX   = $(or $(PREFIX),/usr/local)
BINDIR       ?= $(INST_PREFIX)/bin
LIBDIR       ?= $(INST_PREFIX)/lib
INCLUDEDIR   ?= $(INST_PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DKMSDIR      := /usr/src/npuprof-$(VERSION)
INSTALL_HDRS  = $(shell find include/acl include/mstx include/npuprof include/profiling include/uapi -name '*.h')
DKMS_SRCS     = Kbuild VERSION $(wildcard include/uapi/*.h kmod/*/Kbuild) \
                $(filter-out %.mod.c,$(wildcard kmod/*/*.c kmod/*/*.h))

.PHONY: install install-dkms
install: product
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 755 $(BUILD)/bin/* $(DESTDIR)$(BINDIR)/
	install -m 755 $(LIB_SO) $(RT_PROFAPI) $(RT_MSPROF) $(RT_ATTACH) $(DESTDIR)$(LIBDIR)/
	install -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	for h in $(INSTALL_HDRS); do \
		install -D -m 644 $$h $(DESTDIR)$(INCLUDEDIR)/$${h#include/} || exit 1; done
	sed -e 's|@PREFIX@|$(INST_PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' -e 's|@LIBS_PRIVATE@|$(strip $(LDLIBS))|' \
	    npuprof.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/npuprof.pc

install-dkms:
	@test -n "$(VERSION)" || { echo "no VERSION file" >&2; exit 1; }
	for f in $(DKMS_SRCS); do install -D -m 644 $$f $(DESTDIR)$(DKMSDIR)/$$f || exit 1; done
	sed 's|@VERSION@|$(VERSION)|' dkms.conf > $(DESTDIR)$(DKMSDIR)/dkms.conf

# make install-systemd [PREFIX=] [DESTDIR=] [SYSTEMDUNITDIR=]  the flight
#   recorder's unit (dist/npuprof-flight.service, ExecStart in $(BINDIR));
#   then `systemctl enable --now npuprof-flight`
SYSTEMDUNITDIR ?= /lib/systemd/system
.PHONY: install-systemd
install-systemd:
	install -d $(DESTDIR)$(SYSTEMDUNITDIR)
	sed 's|@BINDIR@|$(BINDIR)|' dist/npuprof-flight.service > $(DESTDIR)$(SYSTEMDUNITDIR)/npuprof-flight.service
	chmod 644 $(DESTDIR)$(SYSTEMDUNITDIR)/npuprof-flight.service

# The SDK is a CANN install as CANN's scripts see it (example/set_sample_env.sh
# and common/resolve_cann_env.sh of hicann/runtime): set_env.sh at the root,
# include/acl/acl.h with lib64/libacl_rt.so (CANN's current name of the
# runtime library; CANN 9 ships it beside libascendcl.so, its compatibility
# library, and libacl_rt_impl.so, its implementation, which examples link
# too, the tdt APIs in libacl_tdt_channel.so and libacl_tdt_queue.so, the
# dump API in libascend_dump.so: here all six names are the one library,
# libascendcl.so), the
# <arch>-linux/{include,lib64} layout, the package headers of
# <arch>-linux/pkg_inc (CANN's cmake/package.cmake: driver/ with the HAL's
# ascend_hal.h, whose simulator-only npusim_hal.h stays out, and profiling/
# with the reporter ABI), and
# <arch>-linux/tikcpp/ascendc_kernel_cmake/ascendc.cmake, which refuses kernel
# builds (dist/sdk/).
SDK_ARCH := $(shell uname -m)-linux
.PHONY: install-sdk
# The packages' version.info (aclsysGetVersionStr reads it as CANN's does):
# the version acl.h's ACL_*_VERSION macros give.
SDK_CANN_VERSION = $(shell sed -n 's/^\#define ACL_\(MAJOR\|MINOR\|PATCH\)_VERSION //p' include/acl/acl.h | paste -sd.)
install-sdk: product
	@test -n "$(PREFIX)" || { echo "usage: make install-sdk PREFIX=DIR" >&2; exit 2; }
	install -d $(PREFIX)/include/acl/error_codes $(PREFIX)/include/hccl $(PREFIX)/include/mstx \
		$(PREFIX)/include/profiling $(PREFIX)/lib64 $(PREFIX)/bin $(PREFIX)/include/aclnn $(PREFIX)/include/aclnnop
	install -m 644 include/acl/*.h $(PREFIX)/include/acl/
	install -m 644 include/acl/error_codes/*.h $(PREFIX)/include/acl/error_codes/
	install -m 644 include/hccl/*.h $(PREFIX)/include/hccl/
	install -m 644 include/mstx/*.h $(PREFIX)/include/mstx/
	install -m 644 include/profiling/*.h $(PREFIX)/include/profiling/
	install -m 755 $(RT_LIBS) $(PREFIX)/lib64/
	install -m 644 include/aclnn/*.h $(PREFIX)/include/aclnn/
	install -m 644 include/aclnnop/*.h $(PREFIX)/include/aclnnop/
	install -m 644 include/securec/*.h $(PREFIX)/include/
	install -m 755 $(NN_LIBS) $(PREFIX)/lib64/
	printf 'export ASCEND_HOME_PATH=%s\nexport LD_LIBRARY_PATH=%s/lib64$${LD_LIBRARY_PATH:+:$$LD_LIBRARY_PATH}\n' \
		"$(abspath $(PREFIX))" "$(abspath $(PREFIX))" > $(PREFIX)/bin/setenv.bash
	sed 's|@PREFIX@|$(abspath $(PREFIX))|' dist/sdk/set_env.sh > $(PREFIX)/set_env.sh
	for l in acl_rt acl_rt_impl acl_tdt_channel acl_tdt_queue ascend_dump; do ln -sf libascendcl.so $(PREFIX)/lib64/lib$$l.so || exit 1; done
	install -d $(PREFIX)/$(SDK_ARCH)/tikcpp/ascendc_kernel_cmake $(PREFIX)/$(SDK_ARCH)/pkg_inc/driver \
		$(PREFIX)/$(SDK_ARCH)/pkg_inc/profiling
	install -m 644 include/driver/ascend_hal.h $(PREFIX)/$(SDK_ARCH)/pkg_inc/driver/
	install -m 644 include/profiling/*.h $(PREFIX)/$(SDK_ARCH)/pkg_inc/profiling/
	ln -sfn ../include $(PREFIX)/$(SDK_ARCH)/include
	ln -sfn ../lib64 $(PREFIX)/$(SDK_ARCH)/lib64
	install -m 644 dist/sdk/ascendc.cmake $(PREFIX)/$(SDK_ARCH)/tikcpp/ascendc_kernel_cmake/
	for p in cann runtime; do install -d $(PREFIX)/share/info/$$p && \
		printf 'Version=%s\n' "$(SDK_CANN_VERSION)" > $(PREFIX)/share/info/$$p/version.info || exit 1; done
	@echo "SDK installed in $(PREFIX)"
