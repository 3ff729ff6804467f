#!/usr/bin/env bash
# Builds AttnScope with sanitizers and runs tests under them (issue 14):
#   packaging/sanitize.sh asan [CTEST_ARGS…]      AddressSanitizer + UndefinedBehaviorSanitizer
#                                                 (+ LeakSanitizer) in build-asan: every test
#   packaging/sanitize.sh tsan [CTEST_ARGS…]      ThreadSanitizer in build-tsan: the tests whose
#                                                 threads AttnScope starts itself (std::thread)
#   packaging/sanitize.sh tsan-app [CTEST_ARGS…]  ThreadSanitizer: the app tests that drive the
#                                                 compute service. NOT clean with Debian's Qt,
#                                                 which TSan cannot see into: a diagnosis, not a
#                                                 gate (tests/sanitize/README.md, "TSan and Qt")
# Extra arguments go to ctest (e.g. -R core_ops to rerun a few tests). Prints the build and the
# test time. Options, suppressions, times and limits: tests/sanitize/README.md.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
jobs="$(nproc 2>/dev/null || echo 2)"
supp="$root/tests/sanitize"

kind="${1:-}"
case "$kind" in
asan)
    # float-cast-overflow is undefined behaviour that -fsanitize=undefined leaves out (a NaN or
    # huge float converted to an integer). _GLIBCXX_ASSERTIONS checks std::vector/std::span
    # indexing, which ASan cannot see while the index stays inside the vector's capacity.
    sanitize="address,undefined,float-cast-overflow"
    extra_flags="-D_GLIBCXX_ASSERTIONS"
    tests=()  # all of them, except:
    # The CPU-check tests run the programs under qemu-user, which turns ASan's 15 TB shadow
    # reservation into real memory: the process grows until the kernel's OOM killer stops it
    # (23 GB in 4 minutes on a 24 GB machine). They test start-up code that the rest of the
    # suite runs natively.
    exclude='_refuses_cpu_without_avx2$'
    targets=()
    tsan_supp=""
    ;;
tsan | tsan-app)
    sanitize="thread"
    extra_flags=""
    exclude='^$'
    tsan_supp="$supp/tsan.supp"
    if [[ "$kind" == tsan ]]; then
        # Threads that AttnScope starts itself, over shared immutable data: four threads on one
        # tokenizer and on one BPE cache, and attnscope-cli deps' two workers on one model (a
        # one-sentence treebank, and UD English EWT dev for the parity runs, which need
        # ../shared and skip without it).
        targets=(core_tokenize_tests core_cli_test attnscope-cli)
        tests=(tokenize.Bpe.CachedAndUncachedAgreeAcrossThreads
            tokenize.Tokenizer.EncodeIsSafeFromSeveralThreads Cli.DepsScoresATreebank
            'reference.deps_parity.*')
    else
        # Every app test that opens a MainWindow, and with it a ComputeService: its worker
        # thread, the QtConcurrent model load, the head-record pool, prediction and dependency
        # jobs. Against an uninstrumented Qt only the Qt-internal reports can be filtered.
        tsan_supp="$supp/tsan_qt.supp"
        targets=(app_main_window_test app_offsets_tab_test app_dependency_panel_test
            app_decoder_window_test app_map_budget_window_test app_head_record_async_test
            app_fresh_start_test)
        tests=("${targets[@]}")
    fi
    ;;
*)
    echo "usage: packaging/sanitize.sh asan|tsan|tsan-app [CTEST_ARGS…]" >&2
    exit 2
    ;;
esac
shift
build="build-${kind%-app}"
# GCC 12 under -fsanitize warns "__builtin_memcpy ... may overlap" (-Wrestrict) in libstdc++'s
# basic_string::_M_replace wherever a short literal is assigned to a string (GCC bug 105329,
# fixed in GCC 13; the normal build does not see it). Shown, but not an error. GCC's manual
# warns that sanitizers raise such false positives; every other warning stays an error.
extra_flags="$extra_flags -Wno-error=restrict"

# Sanitizer run-time options. They are exported before the build too: gtest_discover_tests runs
# every test executable once at build time to list its tests.
#   halt_on_error / -fno-sanitize-recover: the first report ends the process.
#   exitcode=86 (TSan: 66): not 1, the CLI's own code for a data error, which tests that run
#     attnscope-cli on broken files expect; a report must never pass for that.
#   print_stacktrace: UBSan prints where, not only what.
#   detect_leaks: LeakSanitizer runs at exit of every ASan process.
#   detect_stack_use_after_return, check_initialization_order, strict_init_order: the checks
#     ASan leaves off by default for speed.
#   suppressions: third-party code only; every entry says why (tests/sanitize/*.supp).
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:exitcode=86:detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:print_summary=1"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:exitcode=86:print_stacktrace=1:print_summary=1:suppressions=$supp/ubsan.supp"
export TSAN_OPTIONS="halt_on_error=1:exitcode=66:second_deadlock_stack=1:history_size=7:suppressions=$tsan_supp"
# The core's matrix products use an OpenMP team (libgomp, which is not instrumented: TSan cannot
# see its barriers and would report every team's writes as races). One thread, the core's own
# default (base/threads.h), keeps every product on the calling thread; the threads under test
# are the ones AttnScope starts (and, in tsan-app, Qt's).
if [[ "$sanitize" == thread ]]; then
    export OMP_NUM_THREADS=1 ATTNSCOPE_THREADS=1
fi

packaging/install-deps.sh --test

# Wall time, and CPU time (user + sys) that does not depend on what else the machine runs.
TIMEFORMAT="sanitize.sh $kind: %0R s wall, %0U s user + %0S s sys"
start=$SECONDS
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATTNSCOPE_WERROR=ON \
    -DATTNSCOPE_SANITIZE="$sanitize" -DCMAKE_CXX_FLAGS="$extra_flags" \
    -DCMAKE_PROJECT_INCLUDE="$supp/trim_build.cmake"
echo "sanitize.sh $kind: building"
if ((${#targets[@]})); then
    time cmake --build "$build" -j"$jobs" --target "${targets[@]}"
else
    time cmake --build "$build" -j"$jobs"
fi
build_s=$((SECONDS - start))

start=$SECONDS
include='.'
if ((${#tests[@]})); then
    include="^($(IFS='|' && echo "${tests[*]}"))\$"
fi
echo "sanitize.sh $kind: testing"
rc=0
time ctest --test-dir "$build" --output-on-failure -j"$jobs" -R "$include" -E "$exclude" "$@" ||
    rc=$?
test_s=$((SECONDS - start))

echo "sanitize.sh $kind: build ${build_s} s, tests ${test_s} s ($jobs jobs), ctest exit $rc"
exit "$rc"
