# ascendc.cmake of npuprof's CANN-compatible SDK (installed at
# <sdk>/x86_64-linux/tikcpp/ascendc_kernel_cmake, where CANN's sample scripts
# look for ASCENDC_CMAKE_DIR).
#
# CANN's file sets up the AscendC kernel compiler (bisheng/ccec) and its
# ascendc_* functions. This SDK has no AscendC compiler: projects that only
# include this file (host programs, aclnn operators) configure and build;
# every function that would compile a kernel stops the configuration with a
# message that says so, never builds an empty kernel library.

if(NOT DEFINED ASCEND_CANN_PACKAGE_PATH)
    get_filename_component(ASCEND_CANN_PACKAGE_PATH "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
endif()

function(_npuprof_no_ascendc what)
    message(FATAL_ERROR
        "${what}: this CANN SDK is npuprof's (npusim, a simulated Ascend 910B) and has no "
        "AscendC kernel compiler (bisheng/ccec), so AscendC kernels cannot be built. "
        "Build the host program without kernels, or use a CANN toolkit with the compiler.")
endfunction()

function(ascendc_library name)
    _npuprof_no_ascendc("ascendc_library(${name})")
endfunction()
function(ascendc_fatbin_library name)
    _npuprof_no_ascendc("ascendc_fatbin_library(${name})")
endfunction()
function(ascendc_compile_definitions name)
    _npuprof_no_ascendc("ascendc_compile_definitions(${name})")
endfunction()
function(ascendc_compile_options name)
    _npuprof_no_ascendc("ascendc_compile_options(${name})")
endfunction()
function(ascendc_include_directories name)
    _npuprof_no_ascendc("ascendc_include_directories(${name})")
endfunction()
