#include "attnscope/model/arch_table.h"

#include "arch/bert_family.h"
#include "attnscope/base/error.h"

namespace attnscope::model {

std::span<const ArchTable* const> archTables() {
    static const ArchTable* const kTables[] = {&arch::kBert,    &arch::kRoberta, &arch::kDistilBert,
                                               &arch::kElectra, &arch::kGpt2,    &arch::kLlama,
                                               &arch::kMistral, &arch::kQwen2,   &arch::kT5,
                                               &arch::kBart,    &arch::kMBart,   &arch::kMarian};
    return kTables;
}

const ArchTable& archTableFor(const std::string& modelType, const std::string& configFile) {
    std::string supported;
    for (const ArchTable* t : archTables()) {
        if (modelType == t->modelType) {
            return *t;
        }
        supported += (supported.empty() ? "" : ", ") + std::string(t->modelType);
    }
    throw UnsupportedModel(configFile + ": model_type: '" + modelType +
                           "' is not supported; supported model types: " + supported);
}

std::string roleName(Role role) {
    switch (role) {
        case Role::TokenEmbedding:
            return "token embedding";
        case Role::PositionEmbedding:
            return "position embedding";
        case Role::TokenTypeEmbedding:
            return "token-type embedding";
        case Role::EmbeddingNormWeight:
            return "embedding norm weight";
        case Role::EmbeddingNormBias:
            return "embedding norm bias";
        case Role::QueryWeight:
            return "query weight";
        case Role::QueryBias:
            return "query bias";
        case Role::KeyWeight:
            return "key weight";
        case Role::KeyBias:
            return "key bias";
        case Role::ValueWeight:
            return "value weight";
        case Role::ValueBias:
            return "value bias";
        case Role::QkvWeight:
            return "fused query/key/value weight";
        case Role::QkvBias:
            return "fused query/key/value bias";
        case Role::OutputWeight:
            return "attention output weight";
        case Role::OutputBias:
            return "attention output bias";
        case Role::AttnNormWeight:
            return "attention norm weight";
        case Role::AttnNormBias:
            return "attention norm bias";
        case Role::FfnUpWeight:
            return "feed-forward up weight";
        case Role::FfnUpBias:
            return "feed-forward up bias";
        case Role::FfnDownWeight:
            return "feed-forward down weight";
        case Role::FfnDownBias:
            return "feed-forward down bias";
        case Role::FfnNormWeight:
            return "feed-forward norm weight";
        case Role::FfnNormBias:
            return "feed-forward norm bias";
        case Role::FinalNormWeight:
            return "final norm weight";
        case Role::FinalNormBias:
            return "final norm bias";
        case Role::FfnGateWeight:
            return "feed-forward gate weight";
        case Role::FfnGateBias:
            return "feed-forward gate bias";
        case Role::HeadTransformWeight:
            return "prediction head transform weight";
        case Role::HeadTransformBias:
            return "prediction head transform bias";
        case Role::HeadNormWeight:
            return "prediction head norm weight";
        case Role::HeadNormBias:
            return "prediction head norm bias";
        case Role::HeadDecoderWeight:
            return "prediction head decoder weight";
        case Role::HeadDecoderBias:
            return "prediction head decoder bias";
        case Role::FinalLogitsBias:
            return "final logits bias";
        case Role::RelativeBias:
            return "relative position bias";
        case Role::CrossQueryWeight:
            return "cross-attention query weight";
        case Role::CrossQueryBias:
            return "cross-attention query bias";
        case Role::CrossKeyWeight:
            return "cross-attention key weight";
        case Role::CrossKeyBias:
            return "cross-attention key bias";
        case Role::CrossValueWeight:
            return "cross-attention value weight";
        case Role::CrossValueBias:
            return "cross-attention value bias";
        case Role::CrossOutputWeight:
            return "cross-attention output weight";
        case Role::CrossOutputBias:
            return "cross-attention output bias";
        case Role::CrossNormWeight:
            return "cross-attention norm weight";
        case Role::CrossNormBias:
            return "cross-attention norm bias";
    }
    return "?";
}

}  // namespace attnscope::model
