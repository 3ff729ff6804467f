#include "attnscope/model/arch_table.h"

#include <cstddef>
#include <iterator>
#include <utility>

#include "arch/bert_family.h"
#include "attnscope/base/error.h"

namespace attnscope::model {

std::span<const ArchTable* const> archTables() {
    static const ArchTable* const kTables[] = {
        &arch::kBert,   &arch::kRoberta, &arch::kDistilBert, &arch::kElectra, &arch::kGpt2,
        &arch::kLlama,  &arch::kMistral, &arch::kQwen2,      &arch::kT5,      &arch::kBart,
        &arch::kMBart,  &arch::kMarian,  &arch::kGemma,      &arch::kGemma2,  &arch::kGemma3Text,
        &arch::kGemma3, &arch::kQwen3,   &arch::kOlmo2,      &arch::kPhi3,    &arch::kGptNeox};
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

namespace {

// Each role's name in load errors ("missing tensor ... (query weight)"), one row a role in the
// enum's order.
constexpr std::pair<Role, const char*> kRoleNames[] = {
    {Role::TokenEmbedding, "token embedding"},
    {Role::PositionEmbedding, "position embedding"},
    {Role::TokenTypeEmbedding, "token-type embedding"},
    {Role::EmbeddingNormWeight, "embedding norm weight"},
    {Role::EmbeddingNormBias, "embedding norm bias"},
    {Role::QueryWeight, "query weight"},
    {Role::QueryBias, "query bias"},
    {Role::KeyWeight, "key weight"},
    {Role::KeyBias, "key bias"},
    {Role::ValueWeight, "value weight"},
    {Role::ValueBias, "value bias"},
    {Role::QkvWeight, "fused query/key/value weight"},
    {Role::QkvBias, "fused query/key/value bias"},
    {Role::OutputWeight, "attention output weight"},
    {Role::OutputBias, "attention output bias"},
    {Role::AttnNormWeight, "attention norm weight"},
    {Role::AttnNormBias, "attention norm bias"},
    {Role::FfnGateWeight, "feed-forward gate weight"},
    {Role::FfnGateBias, "feed-forward gate bias"},
    {Role::FfnUpWeight, "feed-forward up weight"},
    {Role::FfnUpBias, "feed-forward up bias"},
    {Role::FfnDownWeight, "feed-forward down weight"},
    {Role::FfnDownBias, "feed-forward down bias"},
    {Role::FfnNormWeight, "feed-forward norm weight"},
    {Role::FfnNormBias, "feed-forward norm bias"},
    {Role::FinalNormWeight, "final norm weight"},
    {Role::FinalNormBias, "final norm bias"},
    {Role::HeadTransformWeight, "prediction head transform weight"},
    {Role::HeadTransformBias, "prediction head transform bias"},
    {Role::HeadNormWeight, "prediction head norm weight"},
    {Role::HeadNormBias, "prediction head norm bias"},
    {Role::HeadDecoderWeight, "prediction head decoder weight"},
    {Role::HeadDecoderBias, "prediction head decoder bias"},
    {Role::FinalLogitsBias, "final logits bias"},
    {Role::RelativeBias, "relative position bias"},
    {Role::CrossQueryWeight, "cross-attention query weight"},
    {Role::CrossQueryBias, "cross-attention query bias"},
    {Role::CrossKeyWeight, "cross-attention key weight"},
    {Role::CrossKeyBias, "cross-attention key bias"},
    {Role::CrossValueWeight, "cross-attention value weight"},
    {Role::CrossValueBias, "cross-attention value bias"},
    {Role::CrossOutputWeight, "cross-attention output weight"},
    {Role::CrossOutputBias, "cross-attention output bias"},
    {Role::CrossNormWeight, "cross-attention norm weight"},
    {Role::CrossNormBias, "cross-attention norm bias"},
    {Role::QueryNormWeight, "query norm weight"},
    {Role::QueryNormBias, "query norm bias"},
    {Role::KeyNormWeight, "key norm weight"},
    {Role::KeyNormBias, "key norm bias"},
    {Role::PostAttnNormWeight, "post-attention norm weight"},
    {Role::PostAttnNormBias, "post-attention norm bias"},
    {Role::PostFfnNormWeight, "post-feed-forward norm weight"},
    {Role::PostFfnNormBias, "post-feed-forward norm bias"},
    {Role::FfnGateUpWeight, "feed-forward gate|up weight"},
    {Role::FfnGateUpBias, "feed-forward gate|up bias"},
};

constexpr bool rowsFollowEnum() {
    for (std::size_t i = 0; i < std::size(kRoleNames); ++i) {
        if (static_cast<std::size_t>(kRoleNames[i].first) != i) {
            return false;
        }
    }
    return true;
}

}  // namespace

// A role added without a row, or a row out of place, fails here rather than printing "?".
static_assert(std::size(kRoleNames) == static_cast<std::size_t>(Role::FfnGateUpBias) + 1);
static_assert(rowsFollowEnum());

std::string roleName(Role role) {
    const auto i = static_cast<std::size_t>(role);
    return i < std::size(kRoleNames) ? kRoleNames[i].second : "?";
}

}  // namespace attnscope::model
