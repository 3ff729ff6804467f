// Runs a fuzz harness (LLVMFuzzerTestOneInput) once on every file of the folders or files given,
// for the normal build's CTests: tests/fuzz/corpus/<fuzzer>/ (seeds) and
// tests/fuzz/regressions/<fuzzer>/ (inputs that once crashed). A folder that does not exist
// counts as empty; names starting with '.' are skipped. A crash or an escaping exception fails
// the test, naming the input it was running.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> inputsOf(const fs::path& arg) {
    std::vector<fs::path> out;
    std::error_code ec;
    if (fs::is_regular_file(arg, ec)) {
        out.push_back(arg);
    } else if (fs::is_directory(arg, ec)) {
        for (const auto& entry : fs::recursive_directory_iterator(arg, ec)) {
            if (entry.is_regular_file() && !entry.path().filename().string().starts_with(".")) {
                out.push_back(entry.path());
            }
        }
    } else {
        std::printf("%s: absent, nothing to replay\n", arg.c_str());
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    int count = 0;
    for (int i = 1; i < argc; ++i) {
        for (const fs::path& input : inputsOf(argv[i])) {
            std::ifstream in(input, std::ios::binary);
            const std::vector<char> bytes{std::istreambuf_iterator<char>(in),
                                          std::istreambuf_iterator<char>()};
            std::printf("replaying %s (%zu bytes)\n", input.c_str(), bytes.size());
            std::fflush(stdout);
            try {
                LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                       bytes.size());
            } catch (const std::exception& e) {
                std::fprintf(stderr, "FAILED: %s: exception escaped the harness: %s\n",
                             input.c_str(), e.what());
                return 1;
            }
            ++count;
        }
    }
    std::printf("%d inputs replayed without a finding\n", count);
    return 0;
}
