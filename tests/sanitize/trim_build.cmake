# Loaded by packaging/sanitize.sh through CMAKE_PROJECT_INCLUDE. A sanitizer build exists to run
# the tests, so it leaves out of `all` what no test runs: the core compiled again for x86-64-v3
# and v4 (tests/isa; compiled only, never run, and the normal build already checks it), the
# benchmarks and the screenshot tools. That takes about 40 % off the build. The targets stay
# defined and can still be built by name.
cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _attnscope_sanitize_trim)

function(_attnscope_sanitize_trim)
    foreach(_target IN ITEMS attnscope_core_x86_64_v3 attnscope_core_x86_64_v4 interactive_bench
                             forward_bench readme_screenshots app_views_screenshots)
        if(TARGET ${_target})
            set_target_properties(${_target} PROPERTIES EXCLUDE_FROM_ALL ON)
        endif()
    endforeach()
endfunction()
