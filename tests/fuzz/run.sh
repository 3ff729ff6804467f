#!/bin/bash
# Builds the libFuzzer harnesses with clang (build-fuzz/) and runs each for SECONDS seconds.
#
#   tests/fuzz/run.sh SECONDS [FUZZER...]      e.g. tests/fuzz/run.sh 60
#                                                   tests/fuzz/run.sh 600 fuzz_config fuzz_conllu
#
# Each fuzzer runs in libFuzzer's fork mode (-fork=1), so a crash, timeout, leak or out-of-memory
# is recorded and fuzzing goes on. Its growing corpus is build-fuzz/fuzz-run/<fuzzer>/corpus/
# (seeded from tests/fuzz/corpus/<fuzzer>/, which is only read); every crash, timeout, leak or
# oom input is copied into tests/fuzz/regressions/<fuzzer>/, which the normal build's CTests
# replay. Prints a table (fuzzer, executions, coverage, findings) and the sanitizer summaries, and
# exits 1 when anything was found (2 for a usage or build problem).
#
# Environment: ATTNSCOPE_FUZZ_BUILD (build folder, default build-fuzz), JOBS (build jobs,
# default 2), ATTNSCOPE_FUZZ_FORK (0: plain mode, stops at the first finding).
set -u

usage() {
    sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
}

ALL_FUZZERS=(fuzz_safetensors fuzz_gguf fuzz_shard_index fuzz_config fuzz_tokenizer_json
             fuzz_tokenizer_config fuzz_vocab_txt fuzz_bpe_files fuzz_sentencepiece fuzz_conllu
             fuzz_coref fuzz_sentences fuzz_ablation_list fuzz_what_if fuzz_partial_result)

# Longest input per fuzzer: a little above the largest seed.
max_len() {
    case "$1" in
        fuzz_gguf) echo 32768 ;;
        fuzz_tokenizer_json | fuzz_bpe_files | fuzz_sentencepiece) echo 16384 ;;
        fuzz_safetensors | fuzz_conllu | fuzz_coref | fuzz_partial_result) echo 8192 ;;
        *) echo 4096 ;;
    esac
}

dict_for() {
    case "$1" in
        fuzz_safetensors) echo safetensors.dict ;;
        fuzz_gguf) echo gguf.dict ;;
        fuzz_conllu | fuzz_coref | fuzz_sentences) echo conllu.dict ;;
        fuzz_vocab_txt | fuzz_bpe_files) echo vocab.dict ;;
        fuzz_sentencepiece | fuzz_ablation_list | fuzz_what_if) echo "" ;;
        *) echo json.dict ;;
    esac
}

[[ $# -ge 1 && $1 =~ ^[0-9]+$ && $1 -gt 0 ]] || usage
SECONDS_EACH=$1
shift
FUZZERS=("$@")
[[ ${#FUZZERS[@]} -gt 0 ]] || FUZZERS=("${ALL_FUZZERS[@]}")
for f in "${FUZZERS[@]}"; do
    if [[ ! " ${ALL_FUZZERS[*]} " =~ " $f " ]]; then
        echo "run.sh: unknown fuzzer '$f'; known: ${ALL_FUZZERS[*]}" >&2
        exit 2
    fi
done

REPO=$(cd "$(dirname "$0")/../.." && pwd)
cd "$REPO" || exit 2
BUILD=${ATTNSCOPE_FUZZ_BUILD:-build-fuzz}

# The toolchain: clang and its libFuzzer runtime, from Debian. Nothing is installed here.
for tool in clang clang++; do
    if ! command -v "$tool" > /dev/null; then
        echo "run.sh: $tool not found; install it with: apt-get install clang libclang-rt-dev" >&2
        exit 2
    fi
done
probe=$(mktemp -d)
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' \
    > "$probe/probe.cpp"
if ! clang++ -fsanitize=fuzzer,address,undefined "$probe/probe.cpp" -o "$probe/probe" \
    2> "$probe/log"; then
    cat "$probe/log" >&2
    echo "run.sh: clang cannot link libFuzzer; install it with: apt-get install libclang-rt-dev" \
        "(libclang-rt-14-dev for clang 14)" >&2
    rm -rf "$probe"
    exit 2
fi
rm -rf "$probe"

# -O1 -g as libFuzzer recommends; NDEBUG off and libstdc++'s assertions on, so asserts and
# out-of-range operator[] stop the run too.
if [[ ! -f $BUILD/CMakeCache.txt ]]; then
    nice -n 10 cmake -S . -B "$BUILD" -DATTNSCOPE_FUZZ=ON \
        -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" \
        -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g -D_GLIBCXX_ASSERTIONS" || exit 2
else
    nice -n 10 cmake "$BUILD" > /dev/null || exit 2  # picks up fuzzers added since
fi
nice -n 10 cmake --build "$BUILD" -j"${JOBS:-2}" --target "${FUZZERS[@]}" || exit 2

export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export OMP_NUM_THREADS=1

# One line naming a finding from the output of its re-run: the uncaught exception or broken
# invariant, the sanitizer's SUMMARY (or libFuzzer's error), and the innermost frame in
# AttnScope's own code (core/ or tests/fuzz/).
signature() {
    local what summary frame
    local shorten='s#/[^ ]*/(core|tests/fuzz)/#\1/#'
    what=$(grep -m1 -oE "terminate called after throwing an instance of '[^']*'" "$1" ||
        grep -m1 -oE 'FUZZ INVARIANT BROKEN: [^0-9]{0,40}' "$1")
    summary=$(grep -m1 -E '^SUMMARY: ' "$1" |
        sed -E 's/^SUMMARY: //; s/ \(.*\)$//; s/ in *$//' | sed -E "$shorten")
    [[ -n $summary ]] || summary=$(grep -m1 -oE 'ERROR: libFuzzer: [a-z -]+' "$1")
    frame=$(grep -m1 -E '^ +#[0-9]+ .* in .* /.*/(core|tests/fuzz)/' "$1" |
        sed -E 's/^ +#[0-9]+ 0x[0-9a-f]+ in //; s/\(.*\)( const)? / /' | sed -E "$shorten")
    [[ -n $what$summary$frame ]] || summary="does not reproduce when run alone"
    echo "${what:+$what; }${summary}${frame:+ @ $frame}"
}

# The smallest input in findings file $1 (size, input, signature; tab-separated) with signature $2.
smallest() {
    awk -F'\t' -v s="$2" '$3 == s' "$1" | sort -n | head -n 1 | cut -f2
}

FORK=${ATTNSCOPE_FUZZ_FORK:-1}
declare -A EXECS COV NEWCOV NEWUNITS FOUND STATUS
for f in "${FUZZERS[@]}"; do
    work=$BUILD/fuzz-run/$f
    mkdir -p "$work/corpus" "$work/artifacts"
    rm -f "$work/artifacts/"*
    args=(-max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048
          -max_len="$(max_len "$f")" -artifact_prefix="$work/artifacts/" -print_final_stats=1)
    if [[ $FORK != 0 ]]; then
        args+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
    fi
    dict=$(dict_for "$f")
    [[ -n $dict ]] && args+=(-dict="tests/fuzz/dict/$dict")
    # Coverage before this run (seeds and the corpus kept from earlier runs), counted in
    # libFuzzer's features (edges and their hit-count buckets); empty if an input crashes.
    ft0=$(nice -n 10 "$BUILD/tests/fuzz/$f" -runs=0 -timeout=10 -rss_limit_mb=2048 \
        "$work/corpus" "tests/fuzz/corpus/$f" 2>&1 |
        sed -nE 's/^#[0-9]+[[:space:]]+INITED .*ft: ([0-9]+).*/\1/p')
    units0=$(find "$work/corpus" -type f | wc -l)
    echo "== $f: ${SECONDS_EACH}s, log in $work/log"
    nice -n 10 "$BUILD/tests/fuzz/$f" "${args[@]}" "$work/corpus" "tests/fuzz/corpus/$f" \
        > "$work/log" 2>&1
    rc=$?

    # Executions and features. Fork mode prints "#N: cov: C ft: F corp: U ..." lines; plain
    # mode "#N ... cov: C ft: F corp: U/..." lines and the final stat:: lines.
    stats=$(grep -E '^#[0-9]+' "$work/log" | grep ' ft: ')
    first=$(echo "$stats" | head -n 1)
    last=$(echo "$stats" | tail -n 1)
    field() { echo "$1" | sed -nE "s/.* $2:? ([0-9]+).*/\1/p"; }
    execs=$(grep -E '^stat::number_of_executed_units:' "$work/log" | awk '{print $2}' | tail -n 1)
    [[ -n $execs ]] || execs=$(echo "$last" | sed -nE 's/^#([0-9]+).*/\1/p')
    ft0=${ft0:-$(field "$first" ft)}
    ft1=$(field "$last" ft)
    EXECS[$f]=${execs:-?}
    COV[$f]=${ft1:-?}
    NEWCOV[$f]=$(( ${ft1:-0} - ${ft0:-0} ))
    NEWUNITS[$f]=$(( $(find "$work/corpus" -type f | wc -l) - units0 ))

    # Each finding is run once more alone, for its stack and message (fork mode's log does not
    # always hold them). Findings with the same signature (sanitizer summary, uncaught exception,
    # innermost frame in AttnScope's code) are one bug; its smallest input is kept.
    : > "$work/findings"
    for a in "$work/artifacts/"{crash,timeout,oom,leak}-*; do
        [[ -f $a && $a != *.txt ]] || continue
        nice -n 10 timeout 300 "$BUILD/tests/fuzz/$f" -timeout=10 -rss_limit_mb=2048 "$a" \
            > "$a.txt" 2>&1
        printf '%s\t%s\t%s\n' "$(stat -c %s "$a")" "$a" "$(signature "$a.txt")" \
            >> "$work/findings"
    done
    found=0
    while read -r sig; do
        [[ -n $sig ]] || continue
        best=$(smallest "$work/findings" "$sig")
        mkdir -p "tests/fuzz/regressions/$f"
        cp "$best" "tests/fuzz/regressions/$f/"
        found=$((found + 1))
    done < <(cut -f3 "$work/findings" | sort -u)
    FOUND[$f]=$found
    if [[ $found -eq 0 && $rc -ne 0 ]]; then
        STATUS[$f]="exit $rc"
    else
        STATUS[$f]=ok
    fi
done

echo
printf '%-24s %12s %10s %10s %10s %9s  %s\n' fuzzer executions features "new feat" \
    "new units" findings status
problems=0
for f in "${FUZZERS[@]}"; do
    printf '%-24s %12s %10s %10s %10s %9s  %s\n' "$f" "${EXECS[$f]}" "${COV[$f]}" \
        "${NEWCOV[$f]}" "${NEWUNITS[$f]}" "${FOUND[$f]}" "${STATUS[$f]}"
    [[ ${FOUND[$f]} -eq 0 && ${STATUS[$f]} == ok ]] || problems=1
done
echo "(features: libFuzzer's coverage features (edges and hit-count buckets) at the end; new feat:"
echo " features this run added to what the seeds and the kept corpus reached; new units: inputs"
echo " this run added to $BUILD/fuzz-run/<fuzzer>/corpus/; findings: distinct bugs)"
for f in "${FUZZERS[@]}"; do
    [[ ${FOUND[$f]} -gt 0 || ${STATUS[$f]} != ok ]] || continue
    work=$BUILD/fuzz-run/$f
    echo
    echo "== $f: $(wc -l < "$work/findings") inputs, ${FOUND[$f]} distinct (the smallest of each" \
        "copied to tests/fuzz/regressions/$f/; stacks in $work/artifacts/*.txt):"
    while read -r sig; do
        [[ -n $sig ]] || continue
        n=$(awk -F'\t' -v s="$sig" '$3 == s' "$work/findings" | wc -l)
        best=$(smallest "$work/findings" "$sig")
        echo "  $n x $(basename "$best"): $sig"
    done < <(cut -f3 "$work/findings" | sort -u)
    [[ ${STATUS[$f]} == ok ]] || tail -n 20 "$work/log"
done
exit $problems
