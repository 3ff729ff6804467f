// Fuzzes the safetensors reader: the 8-byte header length, the JSON header (dtype, shape,
// data_offsets, __metadata__), the bounds and overlap checks, and widening to float. The input is
// the whole file, opened as io::SafetensorsFile and then, as a model folder's
// model.safetensors, as io::Checkpoint.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "attnscope/io/checkpoint.h"
#include "attnscope/io/safetensors.h"
#include "fuzz_support.h"

namespace {

using namespace attnscope;

// Widening allocates numel floats; bigger tensors are only looked at.
constexpr std::int64_t kMaxWiden = std::int64_t{1} << 20;

void readTensor(const io::TensorInfo& t, const std::string& file) {
    (void)io::dtypeName(t.dtype);
    const std::int64_t n = t.numel();
    if (n < 0) {
        fuzz::fail(t.name + ": negative numel " + std::to_string(n));
    }
    if (t.bytes.size() != static_cast<std::uint64_t>(n) * io::dtypeSize(t.dtype)) {
        fuzz::fail(t.name + ": " + std::to_string(t.bytes.size()) + " bytes for numel " +
                   std::to_string(n));
    }
    if (n > kMaxWiden) {
        return;
    }
    std::vector<float> out(static_cast<std::size_t>(n));
    fuzz::expectErrors([&] { io::widenToFloat(t, out, file); });
    if (!out.empty()) {
        // A destination of the wrong size must be refused, not written past.
        std::vector<float> small(out.size() - 1);
        fuzz::expectErrors([&] { io::widenToFloat(t, small, file); });
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto dir = fuzz::scratchDir("safetensors");
    const auto path = fuzz::writeFile(dir, "model.safetensors", fuzz::asText(data, size));
    bool opened = false;
    fuzz::expectErrors([&] {
        const io::SafetensorsFile file(path);
        for (const auto& [key, value] : file.metadata()) {
            (void)key.size();
            (void)value.size();
        }
        for (const auto& [name, t] : file.tensors()) {
            if (file.find(name) != &t) {
                fuzz::fail("find('" + name + "') does not return the listed tensor");
            }
            readTensor(t, file.path().string());
            file.dropPages(t);
        }
        (void)file.find("no such tensor");
        opened = true;
    });
    if (opened) {
        fuzz::expectErrors([&] {
            const io::Checkpoint ckpt(dir);
            (void)ckpt.storedDtypes();
            for (const std::string& name : ckpt.tensorNames()) {
                if (ckpt.find(name).info == nullptr) {
                    fuzz::fail("Checkpoint::find('" + name + "') finds nothing");
                }
            }
        });
    }
    return 0;
}
