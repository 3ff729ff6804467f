// Loads a GGUF file (llama.cpp, Ollama): the metadata -> ModelSpec through the architecture's
// entry (gguf_arch.h), the tensors -> typed weight slots (gguf_weights.h), the tokenizer from
// the tokenizer.ggml.* keys.
#include "gguf_model.h"

#include <fstream>
#include <new>
#include <string_view>

#include "../weight_slots.h"
#include "attnscope/base/error.h"
#include "attnscope/io/input_file.h"
#include "gguf_arch.h"
#include "gguf_tokenizer.h"
#include "gguf_weights.h"

namespace attnscope::model::gguf {

namespace {

// F16/BF16 matrices stay half precision by the safetensors loader's rule.
bool keepHalf(const io::GgufFile& file, WeightPrecision precision) {
    std::size_t floats = 0;
    for (const io::GgufTensor& t : file.tensors()) {
        floats += static_cast<std::size_t>(t.elements());
    }
    return detail::keepHalfWeights(floats, precision);
}

}  // namespace

std::shared_ptr<const Model> loadGgufModel(const std::filesystem::path& path,
                                           const LoadOptions& options) {
    auto model = std::make_shared<Model>();
    model->dir = path;
    std::string stage = "the GGUF header";
    try {
        const io::GgufFile file(path);
        const GgufArch& arch = ggufArchFor(file);
        model->spec = arch.readSpec(file, arch);
        checkSpec(model->spec, path.string());
        stage = "the weights";
        model->storedDtypes = tensorTypeMix(file);
        model->halfWeights = keepHalf(file, options.weights);
        readGgufWeights(file, arch, *model, options);
        stage = "the tokenizer";
        readGgufTokenizer(file, options.tokenizer, *model);
    } catch (const std::bad_alloc&) {
        throw Error(path.string() + ": out of memory while reading " + stage +
                    ": the model needs more memory than is free");
    }
    return model;
}

void readGgufTokenizer(const io::GgufFile& file, TokenizerLoading loading, Model& model) {
    if (file.find("tokenizer.ggml.model") == nullptr) {
        model.warnings.push_back(
            "no tokenizer (no tokenizer.ggml.* keys); give token ids instead "
            "of text");
        return;
    }
    if (loading == TokenizerLoading::VocabularyOnly) {
        // Token ids need no tokenizer; its pieces only label them.
        try {
            model.vocabularyOnly = loadGgufTokenizer(file);
        } catch (const Error& e) {
            model.warnings.push_back(std::string(e.what()) +
                                     "; token ids are labelled by their numbers");
        }
        return;
    }
    model.tokenizer = loadGgufTokenizer(file);
    if (model.tokenizer->vocabSize() > static_cast<std::size_t>(model.spec.vocabSize)) {
        model.warnings.push_back("the tokenizer (" + model.tokenizer->describe() +
                                 ") exceeds the token embedding's " +
                                 std::to_string(model.spec.vocabSize) + " rows");
    }
}

bool isGgufPath(const std::filesystem::path& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        return false;
    }
    if (path.extension() == ".gguf") {
        return true;
    }
    // Ollama names its blobs by digest (blobs/sha256-<hex>): the magic says what they are.
    // Only a regular file is opened to look: a FIFO would block the read.
    if (!std::filesystem::is_regular_file(path, ec)) {
        return false;
    }
    std::ifstream in(path, std::ios::binary);
    char magic[4] = {};
    return in.read(magic, sizeof magic) && std::string_view(magic, sizeof magic) == "GGUF";
}

}  // namespace attnscope::model::gguf

namespace attnscope::model {

std::unique_ptr<const tokenize::Tokenizer> loadModelTokenizer(const std::filesystem::path& path) {
    if (gguf::isGgufPath(path)) {
        const io::GgufFile file(path);
        if (file.find("tokenizer.ggml.model") == nullptr) {
            return nullptr;
        }
        return loadGgufTokenizer(file);
    }
    io::requireDirectory(path, "a model or tokenizer folder, or a .gguf file");
    // loadTokenizer prefixes its errors with "loading tokenizer: "; the folder goes first.
    return withContext(path.string(), [&] { return tokenize::loadTokenizer(path, ""); });
}

}  // namespace attnscope::model
