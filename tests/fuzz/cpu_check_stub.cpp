// Stands in for core/src/base/cpu_check.cpp in fuzz builds whose clang cannot compile it
// (clang 14's __builtin_cpu_supports knows no "f16c", "lzcnt" or "movbe"; see CMakeLists.txt).
// The fuzzers are built with -march=native and run where they were built, so the start-up
// check that turns SIGILL on an old CPU into a message has nothing to do here.
