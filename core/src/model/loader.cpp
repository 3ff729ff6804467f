// Loads a Hugging Face model folder: config.json -> ModelSpec (through the architecture's
// table), safetensors -> typed weight slots (every name and shape checked), tokenizer files.
#include <set>

#include "attnscope/base/error.h"
#include "attnscope/io/checkpoint.h"
#include "attnscope/model/arch_table.h"
#include "attnscope/model/model.h"

namespace attnscope::model {

namespace fs = std::filesystem;

namespace {

std::string layerName(const char* pattern, int layer) {
    std::string name = pattern;
    const auto pos = name.find("{}");
    if (pos != std::string::npos) {
        name.replace(pos, 2, std::to_string(layer));
    }
    return name;
}

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

// The [rows, cols] a role must have, in nn.Linear [out, in] terms; cols == 0 for vectors.
std::pair<int, int> expectedShape(Role role, const ModelSpec& s) {
    const int q = s.nHeads * s.headDimK;
    const int k = s.nKvHeads * s.headDimK;
    const int v = s.nKvHeads * s.headDimV;
    switch (role) {
        case Role::TokenEmbedding:
        case Role::HeadDecoderWeight:
            return {s.vocabSize, s.dModel};
        case Role::PositionEmbedding:
            return {s.maxPositions, s.dModel};
        case Role::TokenTypeEmbedding:
            return {s.typeVocabSize, s.dModel};
        case Role::QueryWeight:
            return {q, s.dModel};
        case Role::KeyWeight:
            return {k, s.dModel};
        case Role::QueryBias:
            return {q, 0};
        case Role::KeyBias:
            return {k, 0};
        case Role::ValueWeight:
            return {v, s.dModel};
        case Role::ValueBias:
            return {v, 0};
        case Role::QkvWeight:
            return {q + k + v, s.dModel};
        case Role::QkvBias:
            return {q + k + v, 0};
        case Role::OutputWeight:
            return {s.dModel, s.nHeads * s.headDimV};
        case Role::HeadTransformWeight:
            return {s.dModel, s.dModel};
        case Role::HeadDecoderBias:
            return {s.vocabSize, 0};
        case Role::FfnUpWeight:
        case Role::FfnGateWeight:
            return {s.dFfn, s.dModel};
        case Role::FfnUpBias:
        case Role::FfnGateBias:
            return {s.dFfn, 0};
        case Role::FfnDownWeight:
            return {s.dModel, s.dFfn};
        default:
            return {s.dModel, 0};  // norms and the output/down biases
    }
}

std::string shapeString(const std::vector<std::int64_t>& shape) {
    std::string out = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        out += (i ? ", " : "") + std::to_string(shape[i]);
    }
    return out + "]";
}

class WeightReader {
public:
    WeightReader(const io::Checkpoint& ckpt, std::string prefix)
        : m_ckpt(ckpt), m_prefix(std::move(prefix)) {}

    // Reads `name` into a [rows, cols] matrix (cols == 0: a vector stored as [rows, 1]).
    Matrix read(const std::string& name, Role role, Layout layout, std::pair<int, int> shape);

    const std::set<std::string>& used() const { return m_used; }

    // Prediction heads sit outside the base model's prefix.
    void setPrefix(std::string prefix) { m_prefix = std::move(prefix); }

    std::int64_t parameterCount() const { return m_parameters; }

private:
    io::TensorRef locate(const std::string& name, Role role);

    const io::Checkpoint& m_ckpt;
    std::string m_prefix;
    std::set<std::string> m_used;
    std::int64_t m_parameters = 0;
};

io::TensorRef WeightReader::locate(const std::string& name, Role role) {
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

Matrix WeightReader::read(const std::string& name, Role role, Layout layout,
                          std::pair<int, int> shape) {
    const io::TensorRef ref = locate(name, role);
    const io::TensorInfo& t = *ref.info;
    const std::string file = ref.file->path().string();
    const auto [rows, cols] = shape;
    std::vector<std::int64_t> expected;
    if (cols == 0) {
        expected = {rows};
    } else if (layout == Layout::Conv1DInOut) {
        expected = {cols, rows};
    } else {
        expected = {rows, cols};
    }
    if (t.shape != expected) {
        throw FormatError(file + ": " + t.name + ": shape " + shapeString(t.shape) +
                          " does not match the config, expected " + shapeString(expected) + " (" +
                          roleName(role) + ")");
    }
    Matrix m(expected[0], expected.size() > 1 ? expected[1] : 1);
    io::widenToFloat(t, {m.data(), static_cast<std::size_t>(m.size())}, file);
    m_parameters += t.numel();
    if (layout == Layout::Conv1DInOut) {
        return m.transpose();
    }
    return m;
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

Vector asVector(Matrix m) {
    return Eigen::Map<Vector>(m.data(), m.size());
}

// Splits a fused [q | k | v] projection (rows in nn.Linear layout) into three slots.
void splitQkv(const Matrix& w, const Vector& b, const ModelSpec& s, LayerWeights& layer,
              bool isBias) {
    const int q = s.nHeads * s.headDimK;
    const int k = s.nKvHeads * s.headDimK;
    const int v = s.nKvHeads * s.headDimV;
    if (isBias) {
        layer.query.bias = b.segment(0, q);
        layer.key.bias = b.segment(q, k);
        layer.value.bias = b.segment(q + k, v);
    } else {
        layer.query.weight = w.middleRows(0, q);
        layer.key.weight = w.middleRows(q, k);
        layer.value.weight = w.middleRows(q + k, v);
    }
}

void assignLayerSlot(Role role, Matrix m, const ModelSpec& spec, LayerWeights& l) {
    switch (role) {
        case Role::QueryWeight:
            l.query.weight = std::move(m);
            break;
        case Role::QueryBias:
            l.query.bias = asVector(std::move(m));
            break;
        case Role::KeyWeight:
            l.key.weight = std::move(m);
            break;
        case Role::KeyBias:
            l.key.bias = asVector(std::move(m));
            break;
        case Role::ValueWeight:
            l.value.weight = std::move(m);
            break;
        case Role::ValueBias:
            l.value.bias = asVector(std::move(m));
            break;
        case Role::QkvWeight:
            splitQkv(m, {}, spec, l, false);
            break;
        case Role::QkvBias:
            splitQkv({}, asVector(std::move(m)), spec, l, true);
            break;
        case Role::OutputWeight:
            l.output.weight = std::move(m);
            break;
        case Role::OutputBias:
            l.output.bias = asVector(std::move(m));
            break;
        case Role::AttnNormWeight:
            l.attnNorm.weight = asVector(std::move(m));
            break;
        case Role::AttnNormBias:
            l.attnNorm.bias = asVector(std::move(m));
            break;
        case Role::FfnGateWeight:
            l.ffnGate.weight = std::move(m);
            break;
        case Role::FfnGateBias:
            l.ffnGate.bias = asVector(std::move(m));
            break;
        case Role::FfnUpWeight:
            l.ffnUp.weight = std::move(m);
            break;
        case Role::FfnUpBias:
            l.ffnUp.bias = asVector(std::move(m));
            break;
        case Role::FfnDownWeight:
            l.ffnDown.weight = std::move(m);
            break;
        case Role::FfnDownBias:
            l.ffnDown.bias = asVector(std::move(m));
            break;
        case Role::FfnNormWeight:
            l.ffnNorm.weight = asVector(std::move(m));
            break;
        case Role::FfnNormBias:
            l.ffnNorm.bias = asVector(std::move(m));
            break;
        default:
            break;
    }
}

void assignModelSlot(Role role, Matrix m, Weights& w) {
    switch (role) {
        case Role::TokenEmbedding:
            w.tokenEmbedding = std::move(m);
            break;
        case Role::PositionEmbedding:
            w.positionEmbedding = std::move(m);
            break;
        case Role::TokenTypeEmbedding:
            w.tokenTypeEmbedding = std::move(m);
            break;
        case Role::EmbeddingNormWeight:
            w.embeddingNorm.weight = asVector(std::move(m));
            break;
        case Role::EmbeddingNormBias:
            w.embeddingNorm.bias = asVector(std::move(m));
            break;
        case Role::FinalNormWeight:
            w.finalNorm.weight = asVector(std::move(m));
            break;
        case Role::FinalNormBias:
            w.finalNorm.bias = asVector(std::move(m));
            break;
        case Role::HeadTransformWeight:
            w.prediction.transform.weight = std::move(m);
            break;
        case Role::HeadTransformBias:
            w.prediction.transform.bias = asVector(std::move(m));
            break;
        case Role::HeadNormWeight:
            w.prediction.transformNorm.weight = asVector(std::move(m));
            break;
        case Role::HeadNormBias:
            w.prediction.transformNorm.bias = asVector(std::move(m));
            break;
        case Role::HeadDecoderWeight:
            w.prediction.decoder = std::move(m);
            break;
        case Role::HeadDecoderBias:
            w.prediction.bias = asVector(std::move(m));
            break;
        default:
            break;
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
        assignModelSlot(role, reader.read(name, role, Layout::Plain, expectedShape(role, spec)),
                        model.weights);
    };
    for (const TensorEntry& e : layout.transform) {
        readInto(e.role, e.name);  // a partial transform fails here, naming the missing tensor
    }
    if (has(layout.decoderWeight)) {
        readInto(Role::HeadDecoderWeight, layout.decoderWeight);
    } else if (!spec.tieWordEmbeddings) {
        model.warnings.push_back(std::string("no '") + layout.decoderWeight +
                                 "' and tie_word_embeddings is false: no token predictions");
        return;
    }
    if (layout.decoderBias != nullptr && has(layout.decoderBias)) {
        readInto(Role::HeadDecoderBias, layout.decoderBias);
    }
    spec.prediction = layout.kind;
}

void readWeights(const io::Checkpoint& ckpt, const ArchTable& table, Model& model,
                 const LoadOptions& options) {
    const ModelSpec& spec = model.spec;
    WeightReader reader(ckpt, model.tensorPrefix);
    model.weights.layers.resize(static_cast<std::size_t>(spec.nLayers));
    const double total = static_cast<double>(table.tensors.size());
    double done = 0;
    for (const TensorEntry& e : table.tensors) {
        options.cancel.throwIfCancelled();
        if ((e.role == Role::TokenTypeEmbedding && spec.typeVocabSize == 0) ||
            (e.needed != nullptr && !e.needed(spec))) {
            continue;
        }
        const auto shape = expectedShape(e.role, spec);
        if (!isPerLayer(e.name)) {
            assignModelSlot(e.role, reader.read(e.name, e.role, e.layout, shape), model.weights);
        } else {
            for (int layer = 0; layer < spec.nLayers; ++layer) {
                assignLayerSlot(e.role,
                                reader.read(layerName(e.name, layer), e.role, e.layout, shape),
                                spec, model.weights.layers[static_cast<std::size_t>(layer)]);
            }
        }
        if (options.progress) {
            options.progress(++done / total);
        }
    }
    readPredictionHead(ckpt, table.prediction, model, reader);
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
    if (!unknown.empty()) {
        std::string list;
        for (std::size_t i = 0; i < unknown.size() && i < 5; ++i) {
            list += (i ? ", " : "") + unknown[i];
        }
        model.warnings.push_back("ignored " + std::to_string(unknown.size()) +
                                 " unknown tensor(s): " + list +
                                 (unknown.size() > 5 ? ", ..." : ""));
    }
}

}  // namespace

std::shared_ptr<const Model> loadModel(const fs::path& dir, const LoadOptions& options) {
    if (!fs::is_directory(dir)) {
        throw FormatError(dir.string() + ": not a folder (expected a Hugging Face model folder)");
    }
    auto model = std::make_shared<Model>();
    model->dir = dir;
    const io::JsonFile config(dir / "config.json");
    if (!config.has("model_type")) {
        throw FormatError(config.fileName() + ": model_type: missing");
    }
    const ArchTable& table = archTableFor(config.string("model_type", ""), config.fileName());
    model->spec = table.readConfig(config);
    model->spec.modelType = table.modelType;
    if (model->spec.nKvHeads == 0) {
        model->spec.nKvHeads = model->spec.nHeads;
    }
    checkSpec(model->spec, config.fileName());
    const io::Checkpoint ckpt(dir);
    model->storedDtypes = ckpt.storedDtypes();
    model->tensorPrefix = detectPrefix(ckpt, table, dir);
    readWeights(ckpt, table, *model, options);
    // loadTokenizer prefixes its errors with "loading tokenizer: "; the folder goes first.
    model->tokenizer = withContext(
        dir.string(), [&] { return tokenize::loadTokenizer(dir, model->spec.modelType); });
    if (!model->tokenizer) {
        model->warnings.push_back(
            "no tokenizer files (tokenizer.json, tokenizer.model, vocab.txt or vocab.json + "
            "merges.txt); give token ids instead of text");
    } else if (model->tokenizer->vocabSize() > static_cast<std::size_t>(model->spec.vocabSize)) {
        model->warnings.push_back(
            "the tokenizer has " + std::to_string(model->tokenizer->vocabSize()) +
            " tokens but the model only " + std::to_string(model->spec.vocabSize) +
            " (vocab_size): text with the extra tokens cannot be run");
    }
    return model;
}

}  // namespace attnscope::model
