# cmake -DQEMU=qemu-x86_64 -DPROGRAM=attnscope-cli -P cpu_check_test.cmake
# Runs PROGRAM --version on an emulated Westmere (x86-64-v2: no AVX) and requires the start-up
# check's message (core/src/base/cpu_check.cpp) and exit code 1, not a SIGILL. Exit 77 (skip)
# without qemu-user.
if(NOT QEMU)
    message("qemu-x86_64 not found (Debian package qemu-user): cannot emulate an older CPU")
    cmake_language(EXIT 77)
endif()
execute_process(COMMAND ${QEMU} -cpu Westmere ${PROGRAM} --version
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
get_filename_component(name ${PROGRAM} NAME)
set(expected "${name}: this CPU cannot run AttnScope: it needs an x86-64 CPU with AVX2, FMA and F16C")
string(FIND "${err}" "${expected}" at)
if(NOT rc STREQUAL "1" OR at EQUAL -1 OR NOT err MATCHES "lacks AVX AVX2 FMA F16C")
    message(FATAL_ERROR "expected exit 1 and the CPU message, got exit ${rc}\nstdout: ${out}\n"
                        "stderr: ${err}")
endif()
message(STATUS "refused as expected: ${err}")
