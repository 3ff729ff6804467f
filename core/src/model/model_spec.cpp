#include "attnscope/model/model_spec.h"

#include "attnscope/base/error.h"

namespace attnscope::model {

int ModelSpec::maxTokens() const {
    if (positions == PositionScheme::SkipPadTokens && padTokenId) {
        return maxPositions - *padTokenId - 1;
    }
    return maxPositions - positionOffset;
}

float ModelSpec::defaultScale(int layer) const {
    float scale = scaleAttention ? 1.0f / std::sqrt(static_cast<float>(headDimK)) : 1.0f;
    if (scaleByInverseLayer) {
        scale /= static_cast<float>(layer + 1);
    }
    return scale;
}

std::string activationName(Activation a) {
    switch (a) {
        case Activation::Gelu:
            return "gelu (erf)";
        case Activation::GeluTanh:
            return "gelu (tanh approximation)";
        case Activation::Relu:
            return "relu";
        case Activation::Silu:
            return "silu";
    }
    return "?";
}

Activation parseActivation(const std::string& name, const std::string& file,
                           const std::string& key) {
    if (name == "gelu") {
        return Activation::Gelu;
    }
    if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast") {
        return Activation::GeluTanh;
    }
    if (name == "relu") {
        return Activation::Relu;
    }
    if (name == "silu" || name == "swish") {
        return Activation::Silu;
    }
    throw UnsupportedModel(file + ": " + key + ": activation '" + name +
                           "' is not supported (expected gelu, gelu_new, gelu_pytorch_tanh, "
                           "gelu_fast, relu, silu)");
}

void checkSpec(const ModelSpec& spec, const std::string& file) {
    const std::pair<const char*, int> sizes[] = {
        {"number of layers", spec.nLayers},  {"number of heads", spec.nHeads},
        {"hidden size", spec.dModel},        {"feed-forward size", spec.dFfn},
        {"vocabulary size", spec.vocabSize}, {"max positions", spec.maxPositions},
        {"head width", spec.headDimK},
    };
    for (const auto& [what, value] : sizes) {
        if (value <= 0) {
            throw FormatError(file + ": " + what + " is " + std::to_string(value) +
                              ", expected a positive number");
        }
    }
    if (spec.maxTokens() <= 0) {
        throw FormatError(file + ": max_position_embeddings (" + std::to_string(spec.maxPositions) +
                          ") leaves no room for tokens after the position offset");
    }
    if (!(spec.normEps > 0.0f)) {
        throw FormatError(file + ": layer norm epsilon must be positive");
    }
}

}  // namespace attnscope::model
