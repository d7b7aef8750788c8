// Prints the SoC version of device 0 (aclrtGetSocName needs no aclInit), as
// the helper of CANN's set_sample_env.sh does to find SOC_VERSION; exit 1
// when no device answers.
#include <cstdio>

#include "acl/acl.h"

int main()
{
    const char *soc = aclrtGetSocName();

    if (soc == nullptr || soc[0] == '\0') {
        std::fprintf(stderr, "soc_name: no device answered aclrtGetSocName\n");
        return 1;
    }
    std::printf("%s\n", soc);
    return 0;
}
