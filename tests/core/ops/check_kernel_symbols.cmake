# cmake -DOBJECTS="a.o|b.o" -DNM=nm -P check_kernel_symbols.cmake: fails unless every object
# defines exactly one global symbol, its *WeightKernel() entry point, and no weak ones.
string(REPLACE "|" ";" OBJECTS "${OBJECTS}")
foreach(object IN LISTS OBJECTS)
    execute_process(COMMAND ${NM} -C --defined-only --extern-only ${object}
                    OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "${NM} failed on ${object}")
    endif()
    string(STRIP "${symbols}" symbols)
    string(REPLACE "\n" ";" symbols "${symbols}")
    list(LENGTH symbols count)
    if(NOT count EQUAL 1 OR NOT symbols MATCHES " T attnscope::ops::detail::[a-z0-9]+WeightKernel\\(\\)$")
        message(FATAL_ERROR "${object} must export only its WeightKernel() entry point, found:\n"
                            "${symbols}")
    endif()
    message(STATUS "${object}: ${symbols}")
endforeach()
