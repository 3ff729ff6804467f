// The pieces the architecture tables are built from (bert_family.h).
#include <cmath>
#include <deque>
#include <string>

#include "attnscope/base/error.h"
#include "attnscope/io/json_access.h"
#include "bert_family.h"

namespace attnscope::model::arch {

const char* keptName(const std::string& name) {
    static std::deque<std::string> names;  // the tables keep pointers; a deque never moves
    return names.emplace_back(name).c_str();
}

void addLinear(std::vector<TensorEntry>& e, Role weight, Role bias, const std::string& base,
               Needed biasNeeded, Layout layout) {
    e.push_back({weight, keptName(base + ".weight"), layout});
    e.push_back({bias, keptName(base + ".bias"), Layout::Plain, biasNeeded});
}

void addNorm(std::vector<TensorEntry>& e, Role weight, Role bias, const std::string& base,
             Needed needed) {
    e.push_back({weight, keptName(base + ".weight"), Layout::Plain, needed});
    e.push_back({bias, keptName(base + ".bias"), Layout::Plain, needed});
}

void addAttention(std::vector<TensorEntry>& e, const std::string& layer, const AttentionNames& n,
                  bool cross) {
    using enum Role;
    // Query, key, value and output projections, then the norm: weight and bias roles of each.
    static constexpr Role kSelf[5][2] = {{QueryWeight, QueryBias},
                                         {KeyWeight, KeyBias},
                                         {ValueWeight, ValueBias},
                                         {OutputWeight, OutputBias},
                                         {AttnNormWeight, AttnNormBias}};
    static constexpr Role kCross[5][2] = {{CrossQueryWeight, CrossQueryBias},
                                          {CrossKeyWeight, CrossKeyBias},
                                          {CrossValueWeight, CrossValueBias},
                                          {CrossOutputWeight, CrossOutputBias},
                                          {CrossNormWeight, CrossNormBias}};
    const auto& roles = cross ? kCross : kSelf;
    const char* const projections[] = {n.query, n.key, n.value, n.output};
    for (int i = 0; i < 4; ++i) {
        addLinear(e, roles[i][0], roles[i][1], layer + projections[i]);
    }
    addNorm(e, roles[4][0], roles[4][1], layer + n.norm);
}

void readSizes(const io::JsonFile& config, const SizeKeys& keys, ModelSpec& spec) {
    spec.dModel = config.positiveInt(keys.width);
    spec.nHeads = config.positiveInt(keys.heads);
    spec.nLayers = config.positiveInt(keys.layers);
    spec.dFfn = config.positiveInt(keys.ffn);
    spec.vocabSize = config.positiveInt("vocab_size");
}

void addFeedForward(std::vector<TensorEntry>& e, const std::string& layer,
                    const FeedForwardNames& n) {
    using enum Role;
    addLinear(e, FfnUpWeight, FfnUpBias, layer + n.up);
    addLinear(e, FfnDownWeight, FfnDownBias, layer + n.down);
    addNorm(e, FfnNormWeight, FfnNormBias, layer + n.norm);
}

PredictionLayout maskedLmHead(const std::string& dense, const std::string& norm,
                              const char* decoderWeight, const char* decoderBias) {
    PredictionLayout head{PredictionKind::MaskedLm, {}, decoderWeight, decoderBias};
    addLinear(head.transform, Role::HeadTransformWeight, Role::HeadTransformBias, dense);
    addNorm(head.transform, Role::HeadNormWeight, Role::HeadNormBias, norm);
    return head;
}

void setHeadDims(ModelSpec& spec, const std::string& file, const std::string& widthKey,
                 const std::string& headsKey, const std::string& orElse) {
    if (spec.dModel % spec.nHeads != 0) {
        throw FormatError(file + ": " + widthKey + " (" + std::to_string(spec.dModel) +
                          ") is not divisible by " + headsKey + " (" + std::to_string(spec.nHeads) +
                          ")" + orElse);
    }
    spec.headDimK = spec.headDimV = spec.dModel / spec.nHeads;
}

double positiveNumber(const io::JsonFile& config, const std::string& key, double fallback) {
    const double value = config.number(key, fallback);
    if (!(value > 0.0) || !std::isfinite(value)) {
        throw FormatError(config.fileName() + ": " + key + ": expected a positive number, found " +
                          std::to_string(value));
    }
    return value;
}

float softcap(const io::JsonFile& config, const std::string& key, double fallback) {
    if (!config.root().contains(key)) {
        return static_cast<float>(fallback);
    }
    return config.has(key) ? static_cast<float>(positiveNumber(config, key, 1.0)) : 0.0f;
}

void readLayerTypes(const io::JsonFile& config, ModelSpec& spec,
                    const std::function<bool(int layer)>& local) {
    spec.slidingLayers.assign(static_cast<std::size_t>(spec.nLayers), 0);
    const io::JsonAt at = config.at();
    const io::Json* types = io::optionalArray(config.root(), at, "layer_types");
    if (types == nullptr) {
        for (int layer = 0; layer < spec.nLayers; ++layer) {
            spec.slidingLayers[static_cast<std::size_t>(layer)] = local(layer) ? 1 : 0;
        }
        return;
    }
    const io::JsonAt listAt = at["layer_types"];
    if (types->size() != static_cast<std::size_t>(spec.nLayers)) {
        io::failAt(listAt, "lists " + std::to_string(types->size()) + " layers, the model has " +
                               std::to_string(spec.nLayers));
    }
    for (std::size_t layer = 0; layer < types->size(); ++layer) {
        const std::string type = io::asString((*types)[layer], listAt[layer]);
        if (type != "sliding_attention" && type != "full_attention") {
            io::failAt(listAt[layer], "'" + type +
                                          "' is not a layer type AttnScope reads "
                                          "(sliding_attention, full_attention)");
        }
        spec.slidingLayers[layer] = type == "sliding_attention" ? 1 : 0;
    }
}

}  // namespace attnscope::model::arch
