// The pieces the architecture tables are built from (bert_family.h).
#include <deque>
#include <string>

#include "attnscope/base/error.h"
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

}  // namespace attnscope::model::arch
