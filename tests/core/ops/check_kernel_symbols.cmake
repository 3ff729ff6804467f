# cmake -DOBJECTS="a.o|b.o" -DNM=nm [-DENTRY=regex] -P check_kernel_symbols.cmake: fails unless
# every object defines exactly one global symbol, its entry point (ENTRY, by default
# [a-z0-9]+WeightKernel: avx2WeightKernel()), and no weak ones.
# DW.ref.__gxx_personality_v0 is not counted: a weak pointer to the C++ unwinder's personality
# routine, no code, the same in every object, that the compiler adds wherever a function gets an
# unwind landing pad, as ASan's stack instrumentation gives the kernels (packaging/sanitize.sh).
string(REPLACE "|" ";" OBJECTS "${OBJECTS}")
if(NOT DEFINED ENTRY)
    set(ENTRY "[a-z0-9]+WeightKernel")
endif()
foreach(object IN LISTS OBJECTS)
    execute_process(COMMAND ${NM} -C --defined-only --extern-only ${object}
                    OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "${NM} failed on ${object}")
    endif()
    string(STRIP "${symbols}" symbols)
    string(REPLACE "\n" ";" symbols "${symbols}")
    list(FILTER symbols EXCLUDE REGEX " V DW\\.ref\\.__gxx_personality_v0$")
    list(LENGTH symbols count)
    if(NOT count EQUAL 1 OR NOT symbols MATCHES " T attnscope::ops::detail::${ENTRY}\\(\\)$")
        message(FATAL_ERROR "${object} must export only its ${ENTRY}() entry point, found:\n"
                            "${symbols}")
    endif()
    message(STATUS "${object}: ${symbols}")
endforeach()
