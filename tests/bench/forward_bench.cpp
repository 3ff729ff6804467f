// AttnScope's side of the forward-pass benchmark (issue 6): one model folder, runForward with
// every head recorded, batch 1, wall time per run, peak resident memory.
//
//   forward_bench MODEL_DIR [--n 8,32,128] [--threads 1,2] [--repeats 5]   one JSON object
//   (either form) --int8-activations: quantized GGUF matrices with 8-bit activations
//   forward_bench MODEL_DIR --serve     one JSON request per stdin line, one JSON reply per line
//     {"ids": [...], "threads": t, "repeats": r, "warmup": w}: forward passes, as above
//     {"generate": [...prompt ids], "steps": s, "threads": t, "repeats": r, "warmup": w}: greedy
//     KV-cached generation (forward/generation.h, every step's attention rows recorded), timed
//     per step: the prompt pass and each decode step apart (issue 34's generation benchmark)
//   forward_bench --gemm 1024 [--threads 1,2] [--repeats 5]     Eigen sgemm GFLOP/s
//   forward_bench --fma-peak [--threads 1,2] [--repeats 5]      the FMA units' GFLOP/s
//
// A plain timing loop, not Google Benchmark: run_forward_bench.py interleaves this program with
// the PyTorch and ONNX Runtime peers round by round (A B C A B C ...) and pools the samples
// itself, which Google Benchmark's own repetition loop cannot do across processes. --serve keeps
// the loaded model between rounds so the 4 GB Llama is not reloaded for every sample.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <immintrin.h>
#include <nlohmann/json.hpp>
#include <sys/resource.h>

#include "attnscope/base/error.h"
#include "attnscope/base/memory_reuse.h"
#include "attnscope/base/tensor.h"
#include "attnscope/base/threads.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/forward/generation.h"
#include "attnscope/model/model.h"

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

long peakRssKb() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;  // KiB on Linux
}

// Current (not peak) resident set, from /proc/self/status.
long currentRssKb() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmRSS:", 0) == 0) {
            return std::stol(line.substr(6));
        }
    }
    return -1;
}

std::vector<int> parseList(const std::string& text) {
    std::vector<int> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        out.push_back(std::stoi(item));
    }
    return out;
}

// For the standalone mode only: with --serve the driver sends the ids, so that all three
// programs see identical tokens.
std::vector<std::int32_t> randomIds(int n, int vocab, unsigned seed) {
    std::mt19937 rng(seed + static_cast<unsigned>(n));
    std::uniform_int_distribution<std::int32_t> pick(0, vocab - 1);
    std::vector<std::int32_t> ids(static_cast<std::size_t>(n));
    for (auto& id : ids) {
        id = pick(rng);
    }
    return ids;
}

// Mean attended key position (sum_k p * k) over the heads and queries of one layer: a cheap
// fingerprint the driver compares across programs to be sure they computed the same model.
double fingerprint(const attnscope::forward::ForwardResult& r, int layer) {
    const std::size_t n = static_cast<std::size_t>(r.nTokens);
    const std::size_t heads = static_cast<std::size_t>(r.nHeads);
    const float* p = r.probs.data() + static_cast<std::size_t>(layer) * heads * n * n;
    double sum = 0.0;
    for (std::size_t row = 0; row < heads * n; ++row) {
        for (std::size_t k = 0; k < n; ++k) {
            sum += static_cast<double>(p[row * n + k]) * static_cast<double>(k);
        }
    }
    return sum / static_cast<double>(heads * n);
}

// Runs `warmup` untimed and `repeats` timed forward passes on `ids` with `threads` threads.
json timeForward(const attnscope::model::Model& model, const std::vector<std::int32_t>& ids,
                 int threads, int repeats, int warmup) {
    attnscope::setComputeThreads(threads);
    attnscope::forward::ForwardInput input;
    input.tokenIds = ids;
    std::vector<double> times;
    json check = json::array();
    for (int i = 0; i < warmup + repeats; ++i) {
        const auto start = Clock::now();
        const auto result = attnscope::forward::runForward(model, input);
        const double ms = msSince(start);
        if (i >= warmup) {
            times.push_back(ms);
        }
        if (i == warmup + repeats - 1) {
            check = {fingerprint(result, 0), fingerprint(result, result.nLayers - 1)};
        }
    }
    return {{"n", ids.size()},          {"threads", attnscope::computeThreads()},
            {"times_ms", times},        {"maxrss_kb", peakRssKb()},
            {"rss_kb", currentRssKb()}, {"check", check}};
}

// Greedy generation of `steps` tokens after `prompt`, timed from generate()'s progress calls,
// which come after each step: the first interval is the prompt pass with step 0's LM head and
// choice, every later one a decode step (one row through the layers against the KV cache, its
// attention rows kept, the LM head, the greedy choice). The tokens go back for the parity check.
json timeGeneration(const attnscope::model::Model& model, const std::vector<std::int32_t>& prompt,
                    int steps, int threads, int repeats, int warmup) {
    attnscope::setComputeThreads(threads);
    json promptMs = json::array();
    json stepMs = json::array();
    std::vector<std::int32_t> tokens;
    for (int i = 0; i < warmup + repeats; ++i) {
        std::vector<double> marks;
        const auto start = Clock::now();
        const auto g = attnscope::forward::generate(
            model, prompt, steps, {}, {}, [&](double) { marks.push_back(msSince(start)); });
        if (i < warmup || marks.empty()) {
            continue;
        }
        promptMs.push_back(marks[0]);
        std::vector<double> per;
        for (std::size_t s = 1; s < marks.size(); ++s) {
            per.push_back(marks[s] - marks[s - 1]);
        }
        stepMs.push_back(per);
        tokens.clear();
        for (const auto& step : g.steps) {
            tokens.push_back(step.token);
        }
    }
    return {{"prompt_n", prompt.size()},
            {"steps", steps},
            {"threads", attnscope::computeThreads()},
            {"prompt_ms", promptMs},
            {"step_ms", stepMs},
            {"tokens", tokens},
            {"maxrss_kb", peakRssKb()},
            {"rss_kb", currentRssKb()}};
}

json loadInfo(const attnscope::model::Model& model, double loadMs) {
    return {{"program", "attnscope"},
            {"model", model.dir.string()},
            {"load_ms", loadMs},
            {"parameters", model.parameterCount},
            {"stored_dtypes", model.storedDtypes},
            {"rss_after_load_kb", currentRssKb()},
            {"maxrss_kb", peakRssKb()}};
}

int serve(const attnscope::model::Model& model, double loadMs) {
    json ready = loadInfo(model, loadMs);
    ready["ready"] = true;
    std::cout << ready.dump() << std::endl;
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.empty()) {
            continue;
        }
        try {
            const json request = json::parse(line);
            if (request.value("quit", false)) {
                break;
            }
            if (request.contains("generate")) {
                std::cout << timeGeneration(
                                 model, request.at("generate").get<std::vector<std::int32_t>>(),
                                 request.at("steps").get<int>(), request.at("threads").get<int>(),
                                 request.value("repeats", 1), request.value("warmup", 0))
                                 .dump()
                          << std::endl;
                continue;
            }
            const auto ids = request.at("ids").get<std::vector<std::int32_t>>();
            std::cout << timeForward(model, ids, request.at("threads").get<int>(),
                                     request.value("repeats", 1), request.value("warmup", 0))
                             .dump()
                      << std::endl;
        } catch (const std::exception& e) {
            std::cout << json{{"error", e.what()}}.dump() << std::endl;
        }
    }
    return 0;
}

// Eigen's own sgemm on square matrices: part of the "measured GEMM peak" the driver reports.
json gemm(int size, const std::vector<int>& threadCounts, int repeats) {
    using attnscope::Matrix;
    const Matrix a = Matrix::Random(size, size);
    const Matrix b = Matrix::Random(size, size);
    Matrix c(size, size);
    json out = json::array();
    for (int t : threadCounts) {
        attnscope::setComputeThreads(t);
        attnscope::applyComputeThreads();  // Eigen reads this thread's OpenMP setting
        c.noalias() = a * b;               // warm-up: page faults, OpenMP team start
        std::vector<double> gflops;
        for (int i = 0; i < repeats; ++i) {
            const auto start = Clock::now();
            c.noalias() = a * b;
            gflops.push_back(2.0 * size * size * size / (msSince(start) * 1e6));
        }
        out.push_back({{"threads", t}, {"size", size}, {"gflops", gflops}});
    }
    return out;
}

// The FMA peak: every thread multiplies and adds into 24 independent vector registers, no
// memory touched, with the widest unit the CPU has (the weight kernel's choice). The
// "% of peak" the driver reports is against this, not against a GEMM that may fall short of it.
constexpr long kFmaSteps = 20'000'000;

// GCC 12's bug 105593: _mm512_reduce_add_ps warns of an undefined vector wherever it is inlined
// (core/src/ops/kernel_intrinsics.h).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

__attribute__((target("avx512f"))) float fmaLoop512() {
    __m512 acc[24];
    const __m512 b = _mm512_set1_ps(1.0000001f);
    const __m512 c = _mm512_set1_ps(1e-7f);
    for (int i = 0; i < 24; ++i) {
        acc[i] = _mm512_set1_ps(static_cast<float>(i));
    }
    for (long k = 0; k < kFmaSteps; ++k) {
#pragma GCC unroll 24
        for (auto& a : acc) {
            a = _mm512_fmadd_ps(a, b, c);
        }
    }
    float sum = 0.0f;
    for (const auto& a : acc) {
        sum += _mm512_reduce_add_ps(a);
    }
    return sum;
}

#pragma GCC diagnostic pop

__attribute__((target("avx2,fma"))) float fmaLoop256() {
    __m256 acc[12];  // 12 of the 16 registers
    const __m256 b = _mm256_set1_ps(1.0000001f);
    const __m256 c = _mm256_set1_ps(1e-7f);
    for (int i = 0; i < 12; ++i) {
        acc[i] = _mm256_set1_ps(static_cast<float>(i));
    }
    for (long k = 0; k < 4 * kFmaSteps; ++k) {  // the same FLOPs as the AVX-512 loop
#pragma GCC unroll 12
        for (auto& a : acc) {
            a = _mm256_fmadd_ps(a, b, c);
        }
    }
    alignas(32) float lanes[8];
    float sum = 0.0f;
    for (const auto& a : acc) {
        _mm256_store_ps(lanes, a);
        for (float x : lanes) {
            sum += x;
        }
    }
    return sum;
}

json fmaPeak(const std::vector<int>& threadCounts, int repeats) {
    __builtin_cpu_init();
    const bool wide = __builtin_cpu_supports("avx512f");
    const double flopsPerThread = 2.0 * static_cast<double>(kFmaSteps) * 24 * 16;  // either ISA
    json out = json::array();
    for (int t : threadCounts) {
        std::vector<double> gflops;
        for (int i = 0; i < repeats; ++i) {
            float sink = 0.0f;
            const auto start = Clock::now();
#pragma omp parallel num_threads(t) reduction(+ : sink)
            sink += wide ? fmaLoop512() : fmaLoop256();
            gflops.push_back(flopsPerThread * t / (msSince(start) * 1e6));
            if (sink == 1.0f) {  // keeps the loops from being optimised away
                std::cerr << "";
            }
        }
        out.push_back({{"threads", t}, {"gflops", gflops}});
    }
    return {{"program", "fma-peak"}, {"isa", wide ? "avx512" : "avx2"}, {"results", out}};
}

struct Args {
    std::string modelDir;
    std::vector<int> ns{8, 32, 128};
    std::vector<int> threads{1, 2};
    int repeats = 5;
    int gemmSize = 0;
    bool fmaPeak = false;
    unsigned seed = 1;
    bool serve = false;
    bool int8Activations = false;  // --int8-activations: quantized products as llama.cpp's
};

Args parseArgs(int argc, char** argv) {
    Args args;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) {
                throw std::invalid_argument(a + " needs a value");
            }
            return argv[++i];
        };
        if (a == "--n") {
            args.ns = parseList(value());
        } else if (a == "--threads") {
            args.threads = parseList(value());
        } else if (a == "--repeats") {
            args.repeats = std::stoi(value());
        } else if (a == "--seed") {
            args.seed = static_cast<unsigned>(std::stoul(value()));
        } else if (a == "--gemm") {
            args.gemmSize = std::stoi(value());
        } else if (a == "--fma-peak") {
            args.fmaPeak = true;
        } else if (a == "--serve") {
            args.serve = true;
        } else if (a == "--int8-activations") {
            args.int8Activations = true;
        } else if (!a.empty() && a[0] != '-' && args.modelDir.empty()) {
            args.modelDir = a;
        } else {
            throw std::invalid_argument("unknown argument " + a);
        }
    }
    if (args.gemmSize == 0 && !args.fmaPeak && args.modelDir.empty()) {
        throw std::invalid_argument("no MODEL_DIR given");
    }
    return args;
}

int run(const Args& args) {
    if (args.fmaPeak) {
        std::cout << fmaPeak(args.threads, args.repeats).dump() << std::endl;
        return 0;
    }
    if (args.gemmSize > 0) {
        std::cout << json{{"program", "eigen-sgemm"},
                          {"results", gemm(args.gemmSize, args.threads, args.repeats)}}
                         .dump()
                  << std::endl;
        return 0;
    }
    const auto start = Clock::now();
    attnscope::model::LoadOptions options;
    if (args.int8Activations) {
        options.activations = attnscope::model::ActivationPrecision::Int8;
    }
    const auto model = attnscope::model::loadModel(args.modelDir, options);
    const double loadMs = msSince(start);
    if (args.serve) {
        return serve(*model, loadMs);
    }
    json out = loadInfo(*model, loadMs);
    out["runs"] = json::array();
    for (int t : args.threads) {
        for (int n : args.ns) {
            const auto ids = randomIds(n, model->spec.vocabSize, args.seed);
            out["runs"].push_back(timeForward(*model, ids, t, args.repeats, 1));
        }
    }
    std::cout << out.dump(1) << std::endl;
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    attnscope::keepFreedMemoryForReuse();  // as the app and the CLI run (memory_reuse.h)
    try {
        return run(parseArgs(argc, argv));
    } catch (const std::invalid_argument& e) {
        std::cerr << "forward_bench: " << e.what()
                  << "\nusage: forward_bench MODEL_DIR [--n 8,32] [--threads 1,2] [--repeats 5]"
                     " [--serve] | --gemm SIZE | --fma-peak\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "forward_bench: " << e.what() << "\n";
        return 1;
    }
}
