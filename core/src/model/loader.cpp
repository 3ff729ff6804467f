// Loads a Hugging Face model folder: config.json -> ModelSpec (through the architecture's
// table), safetensors -> typed weight slots (every name and shape checked), tokenizer files.
#include <algorithm>
#include <cstring>
#include <new>
#include <optional>
#include <set>

#include "attnscope/base/error.h"
#include "attnscope/io/checkpoint.h"
#include "attnscope/io/input_file.h"
#include "attnscope/model/arch_table.h"
#include "attnscope/model/model.h"
#include "gguf/gguf_model.h"
#include "weight_slots.h"

namespace attnscope::model {

namespace fs = std::filesystem;

namespace {

using detail::layerName;
using detail::shapeText;

bool isPerLayer(const char* pattern) {
    return std::string_view(pattern).find("{}") != std::string_view::npos;
}

// Prefix match where "{}" in the pattern stands for a layer number.
bool matchesPattern(std::string_view name, std::string_view pattern) {
    std::size_t i = 0;
    for (std::size_t p = 0; p < pattern.size(); ++p) {
        if (pattern.substr(p, 2) == "{}") {
            const std::size_t start = i;
            while (i < name.size() && name[i] >= '0' && name[i] <= '9') {
                ++i;
            }
            if (i == start) {
                return false;
            }
            ++p;
        } else if (i >= name.size() || name[i++] != pattern[p]) {
            return false;
        }
    }
    return true;
}

// Copies tensors out of the mapped checkpoint, checking every shape; drops each tensor's
// mapped pages once copied and reports progress as the fraction of the checkpoint's bytes read.
class WeightReader {
public:
    WeightReader(const io::Checkpoint& ckpt, std::string prefix, const LoadOptions& options);

    // Reads `name` into a [rows, cols] matrix (cols == 0: a vector stored as [rows, 1]).
    Matrix read(const std::string& name, Role role, Layout layout, std::pair<int, int> shape);

    const std::set<std::string>& used() const { return m_used; }

    // FormatError "missing tensor" unless the checkpoint holds `name` (or its TF spelling).
    void requirePresent(const std::string& name, Role role) { locate(name, role); }

    // The tensor's F16/BF16 bits as a [rows, cols] matrix in nn.Linear layout, or nullopt
    // when it is stored in another dtype (then `read` widens it).
    std::optional<HalfMatrix> readHalf(const std::string& name, Role role, Layout layout,
                                       std::pair<int, int> shape);

    // Prediction heads sit outside the base model's prefix.
    void setPrefix(std::string prefix) { m_prefix = std::move(prefix); }

    std::int64_t parameterCount() const { return m_parameters; }

    // "tensor (n values)" for each tensor read that held NaN or Inf.
    const std::vector<std::string>& nonFinite() const { return m_nonFinite; }

private:
    void noteNonFinite(const std::string& name, Eigen::Index count) {
        if (count > 0) {
            m_nonFinite.push_back(clipped(name) + " (" + std::to_string(count) + " values)");
        }
    }

    io::TensorRef locate(const std::string& name, Role role);
    void finish(const io::TensorRef& ref);

    const io::Checkpoint& m_ckpt;
    std::string m_prefix;
    const LoadOptions& m_options;
    std::set<std::string> m_used;
    std::vector<std::string> m_nonFinite;
    std::int64_t m_parameters = 0;
    std::size_t m_totalBytes = 0;  // of every tensor in the checkpoint, also those not read
    std::size_t m_bytesRead = 0;
};

WeightReader::WeightReader(const io::Checkpoint& ckpt, std::string prefix,
                           const LoadOptions& options)
    : m_ckpt(ckpt), m_prefix(std::move(prefix)), m_options(options) {
    for (const auto& file : ckpt.files()) {
        for (const auto& [name, t] : file->tensors()) {
            m_totalBytes += t.bytes.size();  // each within the file: checked when opened
        }
    }
}

// A 7 B model has a few hundred tensors of up to a GiB, so progress counts bytes, not tensors.
// Without dropPages every page read would stay resident until the checkpoint is closed, and
// the load would peak at the file's size plus the copies.
void WeightReader::finish(const io::TensorRef& ref) {
    ref.file->dropPages(*ref.info);
    m_bytesRead += ref.info->bytes.size();
    if (m_options.progress && m_totalBytes > 0) {
        m_options.progress(
            std::min(1.0, static_cast<double>(m_bytesRead) / static_cast<double>(m_totalBytes)));
    }
}

io::TensorRef WeightReader::locate(const std::string& name, Role role) {
    m_options.cancel.throwIfCancelled();
    io::TensorRef ref = m_ckpt.find(m_prefix + name);
    // Checkpoints converted from TensorFlow name LayerNorm parameters gamma/beta.
    const auto swapSuffix = [&](std::string_view from, const char* to) {
        if (ref.info == nullptr && name.ends_with(from)) {
            ref = m_ckpt.find(m_prefix + name.substr(0, name.size() - from.size()) + to);
        }
    };
    swapSuffix("LayerNorm.weight", "LayerNorm.gamma");
    swapSuffix("LayerNorm.bias", "LayerNorm.beta");
    if (ref.info == nullptr) {
        throw FormatError(m_ckpt.files().front()->path().parent_path().string() +
                          ": missing tensor '" + m_prefix + name + "' (" + roleName(role) + ")");
    }
    m_used.insert(ref.info->name);
    return ref;
}

// The stored shape a role must have ([rows] for vectors; Conv1D stores [in, out]), checked
// against the tensor; FormatError naming the file, tensor and role otherwise.
std::vector<std::int64_t> checkedShape(const io::TensorRef& ref, Role role, Layout layout,
                                       std::pair<int, int> shape) {
    const auto [rows, cols] = shape;
    std::vector<std::int64_t> expected;
    if (cols == 0) {
        expected = {rows};
    } else if (layout == Layout::Conv1DInOut) {
        expected = {cols, rows};
    } else {
        expected = {rows, cols};
    }
    const io::TensorInfo& t = *ref.info;
    if (t.shape != expected) {
        throw FormatError(ref.file->path().string() + ": " + t.name + ": shape " +
                          shapeText(t.shape) + " does not match the config, expected " +
                          shapeText(expected) + " (" + roleName(role) + ")");
    }
    return expected;
}

Matrix WeightReader::read(const std::string& name, Role role, Layout layout,
                          std::pair<int, int> shape) {
    const io::TensorRef ref = locate(name, role);
    const io::TensorInfo& t = *ref.info;
    const std::vector<std::int64_t> expected = checkedShape(ref, role, layout, shape);
    Matrix m(expected[0], expected.size() > 1 ? expected[1] : 1);
    io::widenToFloat(t, {m.data(), static_cast<std::size_t>(m.size())}, ref.file->path().string());
    noteNonFinite(t.name, (!m.array().isFinite()).count());
    m_parameters += t.numel();
    finish(ref);
    if (layout == Layout::Conv1DInOut) {
        return m.transpose();
    }
    return m;
}

std::optional<HalfMatrix> WeightReader::readHalf(const std::string& name, Role role, Layout layout,
                                                 std::pair<int, int> shape) {
    const io::TensorRef ref = locate(name, role);
    const io::TensorInfo& t = *ref.info;
    if (t.dtype != io::DType::F16 && t.dtype != io::DType::BF16) {
        m_used.erase(t.name);  // `read` will take it
        return std::nullopt;
    }
    const std::vector<std::int64_t> expected = checkedShape(ref, role, layout, shape);
    HalfMatrix h;
    h.bfloat16 = t.dtype == io::DType::BF16;
    h.bits.resize(expected[0], expected[1]);
    std::memcpy(h.bits.data(), t.bytes.data(), t.bytes.size());  // size checked by the reader
    // NaN and Inf are the bit patterns whose exponent field is all ones.
    const std::uint16_t exponent = h.bfloat16 ? 0x7F80 : 0x7C00;
    noteNonFinite(
        t.name, h.bits.unaryExpr([exponent](std::uint16_t b) { return (b & exponent) == exponent; })
                    .count());
    m_parameters += t.numel();
    finish(ref);
    if (layout == Layout::Conv1DInOut) {
        h.bits = h.bits.transpose().eval();
    }
    return h;
}

std::string detectPrefix(const io::Checkpoint& ckpt, const ArchTable& table, const fs::path& dir) {
    const char* probe = table.tensors.front().name;
    std::vector<std::string> candidates = {""};
    candidates.insert(candidates.end(), table.prefixes.begin(), table.prefixes.end());
    for (const std::string& p : candidates) {
        if (ckpt.find(p + probe).info != nullptr) {
            return p;
        }
    }
    std::string tried;
    for (const std::string& p : candidates) {
        tried += (tried.empty() ? "'" : ", '") + p + probe + "'";
    }
    throw FormatError(dir.string() + ": no tensor named " + tried + "; is this really a " +
                      table.modelType + " checkpoint?");
}

}  // namespace

namespace {

// Whether layer weights stay half precision (detail::keepHalfWeights' rule).
bool keepHalf(const io::Checkpoint& ckpt, WeightPrecision precision) {
    std::size_t floats = 0;
    for (const std::string& name : ckpt.tensorNames()) {
        floats += static_cast<std::size_t>(ckpt.find(name).info->numel());
    }
    return detail::keepHalfWeights(floats, precision);
}

// `name` as stored, when this model keeps half precision and the role may (readHalf declines a
// tensor stored in fp32); nullopt means: read it widened to fp32.
std::optional<HalfMatrix> readKeptHalf(WeightReader& reader, const Model& model,
                                       const std::string& name, Role role, Layout layout,
                                       std::pair<int, int> shape) {
    if (!model.halfWeights || !detail::halfEligible(role)) {
        return std::nullopt;
    }
    return reader.readHalf(name, role, layout, shape);
}

Linear asLinear(HalfMatrix half) {
    Linear stored;
    stored.half = std::move(half);
    return stored;
}

// Reads a model-level tensor (embeddings, norms, head) into its slot; the token embedding and
// the decoder stay half precision when the layers do.
void readModelTensor(WeightReader& reader, const std::string& name, Role role, Layout layout,
                     Model& model) {
    const auto shape = detail::expectedShape(role, model.spec);
    if (std::optional<HalfMatrix> half = readKeptHalf(reader, model, name, role, layout, shape)) {
        detail::assignStoredModelSlot(role, asLinear(std::move(*half)), model.weights);
    } else {
        detail::assignModelSlot(role, reader.read(name, role, layout, shape), model.weights);
    }
}

// The prediction head, when the checkpoint has one (BertModel and friends do not). A tied
// decoder reuses the token embedding, so nothing is copied.
void readPredictionHead(const io::Checkpoint& ckpt, const PredictionLayout& layout, Model& model,
                        WeightReader& reader) {
    ModelSpec& spec = model.spec;
    const auto has = [&](const char* name) { return ckpt.find(name).info != nullptr; };
    bool anyTransform = false;
    for (const TensorEntry& e : layout.transform) {
        anyTransform = anyTransform || has(e.name);
    }
    if (layout.kind == PredictionKind::None || (!layout.transform.empty() && !anyTransform)) {
        return;
    }
    reader.setPrefix("");
    const auto readInto = [&](Role role, const char* name) {
        readModelTensor(reader, name, role, Layout::Plain, model);
    };
    for (const TensorEntry& e : layout.transform) {
        readInto(e.role, e.name);  // a partial transform fails here, naming the missing tensor
    }
    if (has(layout.decoderWeight)) {
        readInto(Role::HeadDecoderWeight, layout.decoderWeight);
    } else if (spec.baseModelOnly) {
        return;
    } else if (!spec.tieWordEmbeddings) {
        model.warnings.push_back(std::string("no '") + layout.decoderWeight +
                                 "' and tie_word_embeddings is false: no token predictions");
        return;
    }
    if (layout.decoderBias != nullptr && has(layout.decoderBias)) {
        readInto(layout.decoderBiasRole, layout.decoderBias);
    }
    spec.prediction = layout.kind;
}

// The layer count is config.json's claim; the checkpoint must hold the last layer before a slot
// is allocated for each (a corrupt count of 16 M layers would otherwise cost gigabytes first).
void requireLastLayer(WeightReader& reader, const ArchTable& table, const ModelSpec& spec) {
    for (const TensorEntry& e : table.tensors) {
        if (isPerLayer(e.name) && (e.needed == nullptr || e.needed(spec))) {
            try {
                reader.requirePresent(layerName(e.name, spec.nLayers - 1), e.role);
            } catch (const FormatError& missing) {
                throw FormatError("config.json declares " + std::to_string(spec.nLayers) +
                                  " layers: " + missing.what());
            }
            return;
        }
    }
}

void readWeights(const io::Checkpoint& ckpt, const ArchTable& table, Model& model,
                 const LoadOptions& options) {
    const ModelSpec& spec = model.spec;
    WeightReader reader(ckpt, model.tensorPrefix, options);
    requireLastLayer(reader, table, spec);
    model.weights.layers.resize(static_cast<std::size_t>(spec.nLayers));
    for (const TensorEntry& e : table.tensors) {
        if ((e.role == Role::TokenTypeEmbedding && spec.typeVocabSize == 0) ||
            (e.needed != nullptr && !e.needed(spec))) {
            continue;
        }
        const auto shape = detail::expectedShape(e.role, spec);
        if (!isPerLayer(e.name)) {
            readModelTensor(reader, e.name, e.role, e.layout, model);
        } else {
            for (int layer = 0; layer < spec.nLayers; ++layer) {
                const std::string name = layerName(e.name, layer);
                LayerWeights& slot = model.weights.layers[static_cast<std::size_t>(layer)];
                if (std::optional<HalfMatrix> half =
                        readKeptHalf(reader, model, name, e.role, e.layout, shape)) {
                    detail::assignStoredSlot(e.role, asLinear(std::move(*half)), spec, slot);
                } else {
                    detail::assignLayerSlot(e.role, reader.read(name, e.role, e.layout, shape),
                                            spec, slot);
                }
            }
        }
    }
    readPredictionHead(ckpt, table.prediction, model, reader);
    if (spec.normPlusOne) {
        detail::addOneToNormWeights(model.weights);
    }
    if (options.progress) {
        options.progress(1.0);  // tensors the model does not use were never read
    }
    model.parameterCount = reader.parameterCount();
    std::vector<std::string> unknown;
    for (const std::string& name : ckpt.tensorNames()) {
        if (reader.used().contains(name)) {
            continue;
        }
        std::string_view rest = name;
        if (rest.starts_with(model.tensorPrefix)) {
            rest.remove_prefix(model.tensorPrefix.size());
        }
        bool ignored = false;
        for (const char* pattern : table.ignored) {
            ignored = ignored || matchesPattern(rest, pattern) || matchesPattern(name, pattern);
        }
        if (!ignored) {
            unknown.push_back(name);
        }
    }
    detail::addWeightWarnings(reader.nonFinite(), unknown, model.warnings);
}

void readTokenizer(Model& model) {
    // loadTokenizer prefixes its errors with "loading tokenizer: "; the folder goes first.
    model.tokenizer = withContext(model.dir.string(), [&] {
        return tokenize::loadTokenizer(model.dir, model.spec.modelType);
    });
    if (model.decoder) {
        model.targetTokenizer = withContext(model.dir.string(), [&] {
            return tokenize::loadTargetTokenizer(model.dir, model.spec.modelType);
        });
    }
    if (!model.tokenizer) {
        model.warnings.push_back(
            "no tokenizer files (tokenizer.json, tokenizer.model, vocab.txt or vocab.json + "
            "merges.txt); give token ids instead of text");
    } else if (model.tokenizer->vocabSize() > static_cast<std::size_t>(model.spec.vocabSize)) {
        model.warnings.push_back("the tokenizer (" + model.tokenizer->describe() +
                                 ") exceeds config.json's vocab_size of " +
                                 std::to_string(model.spec.vocabSize) +
                                 ": the tokenizer files may not belong to this model");
    }
}

// Token ids need no tokenizer; its pieces only label them, so a broken file costs the labels.
void readVocabularyOnly(Model& model) {
    try {
        model.vocabularyOnly = tokenize::loadTokenVocabulary(model.dir);
    } catch (const Error& e) {
        model.warnings.push_back(model.dir.string() + ": " + e.what() +
                                 "; token ids are labelled by their numbers");
    }
}

// Padding with an id outside the vocabulary would index past the embedding table; models other
// than RoBERTa use the id for nothing else, so it is dropped rather than the model refused.
void dropImpossiblePadToken(Model& model, const std::string& configFile) {
    ModelSpec& spec = model.spec;
    if (spec.padTokenId && spec.positions != PositionScheme::SkipPadTokens &&
        (*spec.padTokenId < 0 || *spec.padTokenId >= spec.vocabSize)) {
        model.warnings.push_back(configFile +
                                 ": pad_token_id: " + std::to_string(*spec.padTokenId) +
                                 " is not a token id of this model; ignored");
        spec.padTokenId.reset();
    }
}

// Marian's fixed position table, as transformers builds it (MarianSinusoidalPositionalEmbedding):
// the sines of all even dimensions' angles in the first half of each row, then the cosines of
// the odd ones; computed in double and rounded once, as numpy does there.
void buildSinusoidalPositions(Model& model) {
    const ModelSpec& spec = model.spec;
    const int d = spec.dModel;
    const int half = (d + 1) / 2;
    Matrix table(spec.maxPositions, d);
    for (int pos = 0; pos < spec.maxPositions; ++pos) {
        for (int j = 0; j < d; ++j) {
            const double angle =
                pos / std::pow(10000.0, 2.0 * static_cast<double>(j / 2) / static_cast<double>(d));
            const int column = j % 2 == 0 ? j / 2 : half + j / 2;
            table(pos, column) = static_cast<float>(j % 2 == 0 ? std::sin(angle) : std::cos(angle));
        }
    }
    model.weights.positionEmbedding = std::move(table);
}

// The spec of a table read from config.json, completed and checked.
ModelSpec readSpec(const ArchTable& table, const io::JsonFile& config) {
    ModelSpec spec = table.readConfig(config);
    spec.modelType = table.modelType;
    if (spec.nKvHeads == 0) {
        spec.nKvHeads = spec.nHeads;
    }
    return spec;
}

// Reads one stack's weights, reporting progress within [from, to) of the whole load.
void readStack(const io::Checkpoint& ckpt, const ArchTable& table, Model& model,
               const LoadOptions& options, double from, double to) {
    LoadOptions part = options;
    if (options.progress) {
        part.progress = [&options, from, to](double f) {
            options.progress(from + (to - from) * f);
        };
    }
    model.tensorPrefix = detectPrefix(ckpt, table, model.dir);
    readWeights(ckpt, table, model, part);
    if (model.spec.sinusoidalPositions) {
        buildSinusoidalPositions(model);
    }
}

// The decoder stack of an encoder-decoder model, from the same config and checkpoint.
std::unique_ptr<const Model> readDecoder(const io::Checkpoint& ckpt, const ArchTable& table,
                                         const io::JsonFile& config, Model& encoder,
                                         const LoadOptions& options) {
    auto decoder = std::make_unique<Model>();
    decoder->dir = encoder.dir;
    decoder->spec = readSpec(table, config);
    dropImpossiblePadToken(*decoder, config.fileName());
    checkSpec(decoder->spec, config.fileName());
    decoder->storedDtypes = encoder.storedDtypes;
    decoder->halfWeights = encoder.halfWeights;
    readStack(ckpt, table, *decoder, options, 0.5, 1.0);
    encoder.parameterCount += decoder->parameterCount;
    for (const std::string& w : decoder->warnings) {
        encoder.warnings.push_back("decoder: " + w);
    }
    return decoder;
}

}  // namespace

std::shared_ptr<const Model> loadModel(const fs::path& dir, const LoadOptions& options) {
    if (gguf::isGgufPath(dir)) {
        return gguf::loadGgufModel(dir, options);
    }
    io::requireDirectory(dir, "a Hugging Face model folder or a .gguf file");
    auto model = std::make_shared<Model>();
    model->dir = dir;
    // Sizes are checked against the files before anything is allocated, so running out of
    // memory means the model is truly too big here; the message still names what was loading.
    std::string stage = "config.json";
    try {
        const io::JsonFile config(dir / "config.json");
        if (!config.has("model_type")) {
            throw FormatError(config.fileName() + ": model_type: missing");
        }
        const ArchTable& table = archTableFor(config.string("model_type", ""), config.fileName());
        model->spec = readSpec(table, config);
        dropImpossiblePadToken(*model, config.fileName());
        checkSpec(model->spec, config.fileName());
        stage = "the weights";
        const io::Checkpoint ckpt(dir);
        model->storedDtypes = ckpt.storedDtypes();
        model->halfWeights = keepHalf(ckpt, options.weights);
        readStack(ckpt, table, *model, options, 0.0, table.decoder ? 0.5 : 1.0);
        if (table.decoder != nullptr) {
            model->decoder = readDecoder(ckpt, *table.decoder, config, *model, options);
        }
        stage = "the tokenizer files";
        if (options.tokenizer == TokenizerLoading::VocabularyOnly) {
            readVocabularyOnly(*model);
        } else {
            readTokenizer(*model);
        }
    } catch (const std::bad_alloc&) {
        throw Error(dir.string() + ": out of memory while reading " + stage +
                    ": the model needs more memory than is free");
    }
    return model;
}

}  // namespace attnscope::model
