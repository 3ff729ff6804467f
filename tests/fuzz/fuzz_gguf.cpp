// Fuzzes the GGUF reader (issue 32): the header, metadata of every value type (arrays nested,
// strings, bools), the alignment, tensor infos (dims, ggml types, offsets), the bounds and
// overlap checks, the typed reads a loader makes, and dequantization of every readable type.
// The input is the whole file. A file that opens is then read as a model: its tokenizer from the
// tokenizer.ggml.* keys (SentencePiece-style, GPT-2 BPE, BERT's WPM), which encodes fixed texts
// and text cut from the input; its architecture, spec and weights (model::loadModel); and a
// model that loads runs a short forward pass, so the spec's checks are what keep the pass
// inside the weights.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "attnscope/forward/forward_pass.h"
#include "attnscope/io/ggml_blocks.h"
#include "attnscope/io/gguf.h"
#include "attnscope/model/model.h"
#include "fuzz_support.h"

namespace {

using namespace attnscope;

// Dequantizing allocates a row of floats; longer rows are only looked at.
constexpr std::int64_t kMaxRow = std::int64_t{1} << 16;

void readValue(const io::GgufFile& file, const std::string& key, const io::GgufValue& v) {
    (void)v.describe();
    (void)v.asUnsigned();
    (void)v.asSigned();
    (void)v.asNumber();
    (void)v.asBool();
    (void)v.asString();
    fuzz::expectErrors([&] { (void)file.unsignedAt(key); });
    fuzz::expectErrors([&] { (void)file.numberAt(key); });
    fuzz::expectErrors([&] { (void)file.boolAt(key); });
    fuzz::expectErrors([&] { (void)file.stringAt(key); });
    fuzz::expectErrors([&] {
        for (std::string_view s : file.stringArray(key)) {
            (void)s.size();
        }
    });
    fuzz::expectErrors([&] { (void)file.numberArray(key).size(); });
    if (file.find(key) != &v) {
        fuzz::fail("find('" + key + "') does not return the listed value");
    }
}

void readTensor(const io::GgufFile& file, const io::GgufTensor& t) {
    const io::GgmlTypeInfo& info = io::ggmlTypeInfo(t.type);
    if (t.elements() < 0 || t.rows() < 0 || t.rowLength() % info.blockElements != 0) {
        fuzz::fail(t.name + ": inconsistent dims");
    }
    const auto rowBytes =
        static_cast<std::uint64_t>(t.rowLength()) / info.blockElements * info.blockBytes;
    if (t.bytes.size() != rowBytes * static_cast<std::uint64_t>(t.rows())) {
        fuzz::fail(t.name + ": " + std::to_string(t.bytes.size()) + " bytes do not match dims");
    }
    if (file.tensor(t.name) != &t) {
        fuzz::fail("tensor('" + t.name + "') does not return the listed tensor");
    }
    if (!info.readable || t.rowLength() > kMaxRow || t.rows() == 0) {
        return;
    }
    std::vector<float> row(static_cast<std::size_t>(t.rowLength()));
    io::dequantize(t.type, t.bytes.first(rowBytes), row);
    io::dequantize(t.type, t.bytes.last(rowBytes), row);
    if (!row.empty()) {
        // A destination that is not the row's size must be refused, not written past.
        std::vector<float> small(row.size() - 1);
        fuzz::expectErrors([&] { io::dequantize(t.type, t.bytes.first(rowBytes), small); });
    }
}

void readAsModel(const std::filesystem::path& path, std::string_view input) {
    fuzz::expectErrors([&] {
        if (const auto tok = model::loadModelTokenizer(path)) {
            fuzz::exerciseTokenizer(*tok, input);
        }
    });
    fuzz::expectErrors([&] {
        model::LoadOptions options;
        options.tokenizer = model::TokenizerLoading::VocabularyOnly;
        const auto loaded = model::loadModel(path, options);
        const int vocab = loaded->spec.vocabSize;
        if (vocab <= 0) {
            fuzz::fail("a loaded model with vocabulary size " + std::to_string(vocab));
        }
        forward::ForwardInput in;
        in.tokenIds = {0, vocab - 1, vocab / 2};
        const auto result = forward::runForward(*loaded, in);
        (void)result;
    });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto dir = fuzz::scratchDir("gguf");
    const auto path = fuzz::writeFile(dir, "model.gguf", fuzz::asText(data, size));
    bool opened = false;
    fuzz::expectErrors([&] {
        const io::GgufFile file(path);
        for (const auto& [key, value] : file.metadata()) {
            readValue(file, key, value);
        }
        (void)file.find("no such key");
        for (const io::GgufTensor& t : file.tensors()) {
            readTensor(file, t);
            file.dropPages(t);
        }
        opened = true;
    });
    if (opened) {
        readAsModel(path, fuzz::asText(data, size));
    }
    return 0;
}
