// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark only (Makefile: kmod-layout): code that is never called,
 * linked ahead of npuprof.ko's own objects in a second build of the module,
 * so that the same probes sit 1.5 KiB further into their pages.
 */
#include <linux/compiler.h>

void np_layout_pad(void);

noinline void np_layout_pad(void)
{
	asm volatile(".fill 1536, 1, 0x90");
}
