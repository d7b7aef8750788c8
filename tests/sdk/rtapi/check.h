// The checks of the rtapi programs: a failed one names the call, the
// value it gave and the line, and fails the program.
#pragma once
#include <cstdio>
#include <cstdlib>

#include "acl/acl.h"

#define EXPECT(call, want)                                                                 \
	do {                                                                               \
		long got_ = static_cast<long>(call);                                       \
		if (got_ != static_cast<long>(want)) {                                     \
			std::fprintf(stderr, "%s:%d: %s = %ld, want %ld (%s)\n", __FILE__, \
				     __LINE__, #call, got_, static_cast<long>(want),       \
				     aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "");    \
			std::exit(1);                                                      \
		}                                                                          \
	} while (0)
#define OK(call) EXPECT(call, ACL_SUCCESS)
#define TRUE(cond) EXPECT(!!(cond), 1)
