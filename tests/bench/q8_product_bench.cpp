// The 8-bit-activation product (ops::q8Product) against the exact product of the same quantized
// weights (ops::storedProduct: blocks widened to fp32, fp32 kernel), issue 32: a Llama-3-8B
// feed-forward matrix (14336 × 4096, random blocks) of each type, n activation rows, 1 and 2
// threads, medians. One thread is timed in process CPU time (CLOCK_PROCESS_CPUTIME_ID), which a
// busy machine disturbs less than the wall clock; two threads in wall time. Not run by ctest.
//
// usage: q8_product_bench [--types Q4_K,Q6_K,Q8_0] [--n 128,512] [--threads 1,2]
//                         [--rounds 3] [--rows 14336] [--cols 4096]
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include <omp.h>

#include "../core/support/ggml_scale_offsets.h"
#include "attnscope/io/ggml_types.h"
#include "attnscope/ops/half_matrix.h"
#include "attnscope/ops/q8_product.h"

namespace {

using attnscope::Matrix;
using attnscope::io::GgmlType;
using attnscope::ops::BlockMatrix;

struct Options {
    std::vector<std::string> types{"Q4_K", "Q6_K", "Q8_0"};
    std::vector<int> n{128, 512};
    std::vector<int> threads{1, 2};
    int rounds = 3;
    Eigen::Index rows = 14336;
    Eigen::Index cols = 4096;
};

std::vector<std::string> splitList(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        out.push_back(text.substr(start, comma - start));
        start = comma + 1;
    }
    return out;
}

std::vector<int> intList(const std::string& text) {
    std::vector<int> out;
    for (const std::string& s : splitList(text)) {
        out.push_back(std::stoi(s));
    }
    return out;
}

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string key = argv[i];
        const std::string value = argv[i + 1];
        if (key == "--types") {
            o.types = splitList(value);
        } else if (key == "--n") {
            o.n = intList(value);
        } else if (key == "--threads") {
            o.threads = intList(value);
        } else if (key == "--rounds") {
            o.rounds = std::stoi(value);
        } else if (key == "--rows") {
            o.rows = std::stol(value);
        } else if (key == "--cols") {
            o.cols = std::stol(value);
        } else {
            std::fprintf(stderr, "unknown option %s\n", key.c_str());
            std::exit(2);
        }
    }
    return o;
}

GgmlType typeNamed(const std::string& name) {
    for (std::uint32_t id = 0; id < 64; ++id) {
        const auto* info = attnscope::io::ggmlTypeInfo(id);
        if (info && info->name == name) {
            return info->type;
        }
    }
    std::fprintf(stderr, "unknown type %s\n", name.c_str());
    std::exit(2);
}

BlockMatrix randomMatrix(GgmlType type, Eigen::Index rows, Eigen::Index cols) {
    const auto& info = attnscope::io::ggmlTypeInfo(type);
    BlockMatrix m;
    m.type = type;
    m.rows = rows;
    m.cols = cols;
    m.rowBytes = cols / info.blockElements * info.blockBytes;
    m.bytes.resize(static_cast<std::size_t>(rows * m.rowBytes));
    std::mt19937_64 gen(42);
    for (std::size_t i = 0; i + 8 <= m.bytes.size(); i += 8) {
        const std::uint64_t v = gen();
        std::memcpy(m.bytes.data() + i, &v, 8);
    }
    const std::uint16_t smallHalf = 0x1400;  // 2^-10
    for (std::size_t at = 0; at < m.bytes.size(); at += info.blockBytes) {
        for (const std::size_t off : attnscope::testing::ggmlScaleOffsets(type)) {
            std::memcpy(m.bytes.data() + at + off, &smallHalf, 2);
        }
    }
    return m;
}

double seconds(clockid_t clock) {
    timespec t{};
    clock_gettime(clock, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

template <class Fn>
double medianSeconds(int rounds, clockid_t clock, Fn&& fn) {
    fn();  // warm-up: page faults, the kernel choice
    std::vector<double> times;
    for (int r = 0; r < rounds; ++r) {
        const double t0 = seconds(clock);
        fn();
        times.push_back(seconds(clock) - t0);
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    std::printf("q8_product_bench: %ld x %ld, ISA %s, medians of %d\n", o.rows, o.cols,
                attnscope::ops::q8ProductIsa(), o.rounds);
    std::printf("%-5s %5s %3s  %11s %9s  %11s %9s  %6s  %9s\n", "type", "n", "thr", "exact ms",
                "GFLOP/s", "8-bit ms", "GFLOP/s", "ratio", "rel.dev");
    for (const std::string& name : o.types) {
        attnscope::ops::Linear linear;
        linear.blocks = randomMatrix(typeNamed(name), o.rows, o.cols);
        for (const int n : o.n) {
            std::mt19937 gen(7);
            std::normal_distribution<float> normal(0.0f, 1.0f);
            Matrix x(n, o.cols);
            for (Eigen::Index i = 0; i < x.size(); ++i) {
                x.data()[i] = normal(gen);
            }
            for (const int threads : o.threads) {
                omp_set_num_threads(threads);
                const clockid_t clock = threads == 1 ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC;
                Matrix exact;
                Matrix q8;
                const double te = medianSeconds(o.rounds, clock, [&] {
                    exact = attnscope::ops::storedProduct(x, linear, 0, o.rows);
                });
                const double tq = medianSeconds(o.rounds, clock, [&] {
                    q8 = attnscope::ops::q8Product(x, linear.blocks, 0, o.rows);
                });
                const double flop = 2.0 * n * static_cast<double>(o.rows) * o.cols;
                const double dev = (q8 - exact).norm() / exact.norm();
                std::printf("%-5s %5d %3d  %11.1f %9.1f  %11.1f %9.1f  %6.2f  %9.2e\n",
                            name.c_str(), n, threads, 1e3 * te, flop / te * 1e-9, 1e3 * tq,
                            flop / tq * 1e-9, te / tq, dev);
                std::fflush(stdout);
            }
        }
    }
    return 0;
}
