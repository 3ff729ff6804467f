#include "gguf_weights.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "../weight_slots.h"
#include "attnscope/base/error.h"
#include "attnscope/io/ggml_blocks.h"
#include "attnscope/ops/half_matrix.h"
#include "attnscope/ops/q8_product.h"

namespace attnscope::model::gguf {

namespace {

using detail::layerName;
using detail::shapeText;

std::string readableTypes() {
    std::string out;
    for (std::uint32_t id = 0; id < 64; ++id) {
        if (const io::GgmlTypeInfo* t = io::ggmlTypeInfo(id); t != nullptr && t->readable) {
            out += (out.empty() ? "" : ", ") + std::string(t->name);
        }
    }
    return out;
}

// llama.cpp's converter reorders each head's rotated rows from Hugging Face's halves
// (i · r/2 + j) to Meta's interleaved pairs (2j + i), r the rotated dimensions (the whole head
// in the converter; only the first r rows under partial rotation, the rest in place, as the
// tests' converter writes it: llama.cpp itself refuses partial rotation for this
// architecture). This is the inverse, on whole stored rows (a row never shares a block with
// another, so quantized rows move as they are).
std::vector<std::byte> deinterleaveRows(std::span<const std::byte> bytes, std::int64_t rows,
                                        int heads, int rotated) {
    std::vector<std::byte> out(bytes.begin(), bytes.end());
    const auto rowBytes = bytes.size() / static_cast<std::size_t>(rows);
    const std::int64_t headRows = rows / heads;
    const std::int64_t half = rotated / 2;
    for (std::int64_t h = 0; h < heads; ++h) {
        for (std::int64_t j = 0; j < half; ++j) {
            for (std::int64_t i = 0; i < 2; ++i) {
                const auto from = static_cast<std::size_t>(h * headRows + 2 * j + i);
                const auto to = static_cast<std::size_t>(h * headRows + i * half + j);
                std::memcpy(out.data() + to * rowBytes, bytes.data() + from * rowBytes, rowBytes);
            }
        }
    }
    return out;
}

class GgufWeightReader {
public:
    GgufWeightReader(const io::GgufFile& file, const LoadOptions& options)
        : m_file(file), m_options(options) {
        for (const io::GgufTensor& t : file.tensors()) {
            m_totalBytes += t.bytes.size();
        }
    }

    const io::GgufTensor& locate(const std::string& name, Role role) {
        m_options.cancel.throwIfCancelled();
        const io::GgufTensor* t = m_file.tensor(name);
        if (t == nullptr) {
            throw FormatError(m_file.path().string() + ": missing tensor '" + name + "' (" +
                              roleName(role) + ")");
        }
        m_used.insert(name);
        return *t;
    }

    // A tensor read outside the slots (rope_freqs): not to be reported as unknown.
    void markUsed(const std::string& name) { m_used.insert(name); }

    // The tensor's bytes after checking its type and its shape against `shape` ([rows, cols],
    // cols 0 for a vector), the first `rotated` rows of each of `heads` heads de-interleaved
    // when `heads` > 0.
    std::span<const std::byte> checkedBytes(const io::GgufTensor& t, Role role,
                                            std::pair<int, int> shape, int heads, int rotated) {
        const std::string where = m_file.path().string() + ": tensor '" + t.name + "'";
        if (!io::ggmlTypeInfo(t.type).readable) {
            throw UnsupportedModel(where + ": type " + std::string(io::ggmlTypeName(t.type)) +
                                   " is not supported (AttnScope reads " + readableTypes() +
                                   "; I-quants, ternary and FP4 types are not read yet)");
        }
        const std::vector<std::int64_t> expected =
            shape.second == 0 ? std::vector<std::int64_t>{shape.first}
                              : std::vector<std::int64_t>{shape.first, shape.second};
        if (t.torchShape() != expected) {
            throw FormatError(where + ": shape " + shapeText(t.torchShape()) +
                              " does not match the metadata, expected " + shapeText(expected) +
                              " (" + roleName(role) + ")");
        }
        m_parameters += t.elements();
        if (heads == 0) {
            return t.bytes;
        }
        // A bias's rows are its values (stored one by one: 1-D tensors are never blocks).
        const bool vector = t.ne.size() == 1 && io::ggmlTypeInfo(t.type).blockElements == 1;
        const std::int64_t rows = vector ? t.elements() : t.rows();
        if (rows == 0 || rows % heads != 0 || rotated % 2 != 0 || rotated > rows / heads) {
            throw FormatError(where + ": " + std::to_string(rows) + " rows do not split into " +
                              std::to_string(heads) + " heads of " + std::to_string(rotated) +
                              " rotated rows");
        }
        m_scratch = deinterleaveRows(t.bytes, rows, heads, rotated);
        return m_scratch;
    }

    Matrix widened(const io::GgufTensor& t, std::span<const std::byte> bytes) {
        Matrix m(t.rows(), t.rowLength());
        io::dequantize(t.type, bytes, {m.data(), static_cast<std::size_t>(m.size())});
        const Eigen::Index bad = (!m.array().isFinite()).count();
        if (bad > 0) {
            m_nonFinite.push_back(t.name + " (" + std::to_string(bad) + " values)");
        }
        return m;
    }

    void finish(const io::GgufTensor& t) {
        m_file.dropPages(t);
        m_bytesRead += t.bytes.size();
        if (m_options.progress && m_totalBytes > 0) {
            m_options.progress(std::min(
                1.0, static_cast<double>(m_bytesRead) / static_cast<double>(m_totalBytes)));
        }
    }

    const std::set<std::string>& used() const { return m_used; }

    std::int64_t parameters() const { return m_parameters; }

    const std::vector<std::string>& nonFinite() const { return m_nonFinite; }

private:
    const io::GgufFile& m_file;
    const LoadOptions& m_options;
    std::set<std::string> m_used;
    std::vector<std::string> m_nonFinite;
    std::vector<std::byte> m_scratch;
    std::int64_t m_parameters = 0;
    std::size_t m_totalBytes = 0;
    std::size_t m_bytesRead = 0;
};

// A matrix kept as stored: F16/BF16 bits, or ggml blocks.
Linear storedLinear(const io::GgufTensor& t, std::span<const std::byte> bytes) {
    Linear out;
    if (t.type == io::GgmlType::F16 || t.type == io::GgmlType::BF16) {
        out.half.bfloat16 = t.type == io::GgmlType::BF16;
        out.half.bits.resize(t.rows(), t.rowLength());
        std::memcpy(out.half.bits.data(), bytes.data(), bytes.size());
        return out;
    }
    out.blocks.bytes.assign(bytes.begin(), bytes.end());
    out.blocks.type = t.type;
    out.blocks.rows = t.rows();
    out.blocks.cols = t.rowLength();
    out.blocks.rowBytes = static_cast<Eigen::Index>(bytes.size()) / t.rows();
    return out;
}

// Whether a tensor of this type stays as stored: blocks unless fp32 is asked for; F16/BF16 as
// the safetensors loader decides (model.halfWeights).
bool keepStored(const io::GgufTensor& t, Role role, const Model& model,
                const LoadOptions& options) {
    if (!detail::halfEligible(role) || t.type == io::GgmlType::F32 || t.rows() == 0) {
        return false;
    }
    if (t.type == io::GgmlType::F16 || t.type == io::GgmlType::BF16) {
        return model.halfWeights;
    }
    return options.weights != WeightPrecision::Float32;
}

struct Slot {
    Role role;
    std::string name;  // GGUF name
    int layer;         // -1: a model-level tensor
};

// The heads whose rows the converter interleaved for this role, 0 when none.
int interleavedHeads(const GgufArch& arch, Role role, const ModelSpec& spec) {
    if (!arch.interleavedQk) {
        return 0;
    }
    if (role == Role::QueryWeight || role == Role::QueryBias) {
        return spec.nHeads;
    }
    return role == Role::KeyWeight || role == Role::KeyBias ? spec.nKvHeads : 0;
}

void readSlot(GgufWeightReader& reader, const GgufArch& arch, const Slot& s, Model& model,
              const LoadOptions& options) {
    const ModelSpec& spec = model.spec;
    const io::GgufTensor& t = reader.locate(s.name, s.role);
    const std::span<const std::byte> bytes =
        reader.checkedBytes(t, s.role, detail::expectedShape(s.role, spec),
                            interleavedHeads(arch, s.role, spec), spec.rope.dims);
    if (keepStored(t, s.role, model, options)) {
        Linear stored = storedLinear(t, bytes);
        model.blockWeights = model.blockWeights || stored.isBlocks();
        if (stored.isBlocks() && options.activations == ActivationPrecision::Int8 &&
            ops::q8ActivationType(stored.blocks.type)) {
            stored.blocks.int8Activations = true;
            if (!model.int8Activations) {
                model.warnings.push_back(
                    "8-bit activations: quantized matrices are multiplied as llama.cpp does, "
                    "activations quantized per block first; numbers are about 1-3 % off the "
                    "exact model's (leave the option off for those)");
            }
            model.int8Activations = true;
        }
        if (s.layer < 0) {
            detail::assignStoredModelSlot(s.role, std::move(stored), model.weights);
        } else {
            detail::assignStoredSlot(s.role, std::move(stored), spec,
                                     model.weights.layers[static_cast<std::size_t>(s.layer)]);
        }
    } else if (s.layer < 0) {
        detail::assignModelSlot(s.role, reader.widened(t, bytes), model.weights);
    } else {
        detail::assignLayerSlot(s.role, reader.widened(t, bytes), spec,
                                model.weights.layers[static_cast<std::size_t>(s.layer)]);
    }
    reader.finish(t);
}

// Every tensor the architecture's table needs, layer by layer, with its GGUF name.
std::vector<Slot> slotsOf(const GgufArch& arch, const ModelSpec& spec) {
    std::vector<Slot> slots;
    for (const TensorEntry& e : arch.table->tensors) {
        if (e.needed != nullptr && !e.needed(spec)) {
            continue;
        }
        if (e.role == Role::TokenTypeEmbedding && spec.typeVocabSize == 0) {
            continue;  // BERT without token_types.weight, as the safetensors loader skips it
        }
        const std::optional<std::string> name = ggufTensorName(arch, e.name);
        if (!name) {
            throw UnsupportedModel(std::string("GGUF: no tensor name for ") + e.name);
        }
        if (name->find("{}") == std::string::npos) {
            slots.push_back({e.role, *name, -1});
            continue;
        }
        for (int layer = 0; layer < spec.nLayers; ++layer) {
            slots.push_back({e.role, layerName(*name, layer), layer});
        }
    }
    if (arch.prediction == PredictionKind::CausalLm && !spec.tieWordEmbeddings) {
        slots.push_back({Role::HeadDecoderWeight, kOutputTensor, -1});
    }
    return slots;
}

void readRopeFactors(GgufWeightReader& reader, const io::GgufFile& file, ModelSpec& spec) {
    const io::GgufTensor* t = file.tensor(kRopeFreqsTensor);
    if (t == nullptr || spec.rope.dims == 0) {
        return;  // without rotary positions the tensor means nothing: reported as unknown
    }
    reader.markUsed(t->name);
    const std::string where = file.path().string() + ": tensor '" + t->name + "'";
    if (t->type != io::GgmlType::F32 || t->elements() != spec.rope.dims / 2) {
        throw FormatError(where + ": expected " + std::to_string(spec.rope.dims / 2) +
                          " F32 frequency factors");
    }
    spec.rope.frequencyFactors.resize(static_cast<std::size_t>(t->elements()));
    std::memcpy(spec.rope.frequencyFactors.data(), t->bytes.data(), t->bytes.size());
    for (float f : spec.rope.frequencyFactors) {
        if (!(f > 0.0f) || !std::isfinite(f)) {
            throw FormatError(where + ": factor " + std::to_string(f) + " is not positive");
        }
    }
}

// The layer count is the metadata's claim: the last layer must exist before anything is
// allocated for each (16 M layers would cost gigabytes of names and slots first).
void requireLastLayer(const io::GgufFile& file, const GgufArch& arch, const ModelSpec& spec) {
    for (const TensorEntry& e : arch.table->tensors) {
        const std::optional<std::string> name = ggufTensorName(arch, e.name);
        if (name && name->find("{}") != std::string::npos &&
            (e.needed == nullptr || e.needed(spec))) {
            const std::string last = layerName(*name, spec.nLayers - 1);
            if (file.tensor(last) == nullptr) {
                throw FormatError(file.path().string() + ": the metadata declares " +
                                  std::to_string(spec.nLayers) + " layers: missing tensor '" +
                                  last + "'");
            }
            return;
        }
    }
}

// Tensors neither read nor expected (the architecture's ignored prefixes), and weights that
// hold NaN or Inf, in the safetensors loader's words.
void warnAbout(const GgufWeightReader& reader, const io::GgufFile& file, const GgufArch& arch,
               Model& model) {
    std::vector<std::string> unknown;
    for (const io::GgufTensor& t : file.tensors()) {
        const bool ignored = std::any_of(arch.ignored.begin(), arch.ignored.end(),
                                         [&](std::string_view p) { return t.name.starts_with(p); });
        if (!ignored && !reader.used().contains(t.name)) {
            unknown.push_back(t.name);
        }
    }
    detail::addWeightWarnings(reader.nonFinite(), unknown, model.warnings);
    if (arch.prediction == PredictionKind::None) {
        model.warnings.push_back(
            std::string("no prediction head: llama.cpp's converter leaves the masked-LM head "
                        "(cls.predictions.*) out of '") +
            arch.name +
            "' GGUF files, so this model gives attention and hidden states but predicts no "
            "tokens");
    }
}

}  // namespace

void readGgufWeights(const io::GgufFile& file, const GgufArch& arch, Model& model,
                     const LoadOptions& options) {
    GgufWeightReader reader(file, options);
    readRopeFactors(reader, file, model.spec);
    requireLastLayer(file, arch, model.spec);
    const std::vector<Slot> slots = slotsOf(arch, model.spec);
    model.weights.layers.resize(static_cast<std::size_t>(model.spec.nLayers));
    for (const Slot& s : slots) {
        readSlot(reader, arch, s, model, options);
    }
    // After the fused projections are split (by rows of the stored layout): Q8_0 regrouped
    // for the one-row product of generation steps, read back exactly by every other product.
    for (ops::Linear* l : model.weights.linears()) {
        ops::groupRows(l->blocks);
    }
    model.spec.prediction = arch.prediction;
    model.parameterCount = reader.parameters();
    warnAbout(reader, file, arch, model);
    if (options.progress) {
        options.progress(1.0);
    }
}

std::string tensorTypeMix(const io::GgufFile& file) {
    std::map<std::string, int> counts;
    for (const io::GgufTensor& t : file.tensors()) {
        ++counts[std::string(io::ggmlTypeName(t.type))];
    }
    std::vector<std::pair<std::string, int>> sorted(counts.begin(), counts.end());
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    std::string out;
    for (const auto& [name, n] : sorted) {
        out += (out.empty() ? "" : " + ") + name + "×" + std::to_string(n);
    }
    return out;
}

}  // namespace attnscope::model::gguf
