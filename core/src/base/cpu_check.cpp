// Stops a program at start, with a message naming what is missing, on a CPU that cannot run
// AttnScope. The rest of the program is compiled for x86-64-v3 (a portable build) or for the
// build machine (a developer build), and every build runs the AVX2 + FMA weight kernel, so on an
// older CPU its first vector instruction would kill it with SIGILL and no word of why.
//
// This file alone is compiled for baseline x86-64 (core/src/base/CMakeLists.txt) and runs as a
// constructor of the highest priority, before the program's own static initialisers (which may
// already use AVX) and before main. It uses only the C library, and writes with write(2): the
// C++ streams may not be set up yet.
#include <cstring>

#include <unistd.h>

extern "C" const char* program_invocation_short_name;  // glibc: the program's name

namespace {

void say(const char* text) {
    const ssize_t ignored = write(STDERR_FILENO, text, std::strlen(text));
    static_cast<void>(ignored);
}

// x86-64-v3 as GCC and the psABI define it, named as lscpu and CPU data sheets name them.
__attribute__((constructor(101))) void requireX86_64V3() {
    __builtin_cpu_init();

    const struct {
        bool present;
        const char* name;
    } features[] = {
        {__builtin_cpu_supports("avx") != 0, "AVX"},
        {__builtin_cpu_supports("avx2") != 0, "AVX2"},
        {__builtin_cpu_supports("fma") != 0, "FMA"},
        {__builtin_cpu_supports("f16c") != 0, "F16C"},
        {__builtin_cpu_supports("bmi") != 0, "BMI1"},
        {__builtin_cpu_supports("bmi2") != 0, "BMI2"},
        {__builtin_cpu_supports("lzcnt") != 0, "LZCNT"},
        {__builtin_cpu_supports("movbe") != 0, "MOVBE"},
    };

    bool complete = true;
    for (const auto& feature : features) {
        complete = complete && feature.present;
    }
    if (complete) {
        return;
    }
    say(program_invocation_short_name);
    say(": this CPU cannot run AttnScope: it needs an x86-64 CPU with AVX2, FMA and F16C "
        "(x86-64-v3: Intel Haswell, AMD Excavator or Zen, or newer); this one lacks");
    for (const auto& feature : features) {
        if (!feature.present) {
            say(" ");
            say(feature.name);
        }
    }
    say(".\n");
    _exit(1);
}

}  // namespace
