#include "repeated_token_probe.h"

#include "attnscope/base/error.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/forward/head_record.h"

namespace attnscope::analysis::detail {

std::int32_t probeBosId(const model::Model& model, std::optional<std::int32_t> option,
                        std::int32_t fallback, const std::string& what) {
    std::optional<std::int32_t> bos = option;
    if (!bos && model.vocabulary() != nullptr) {
        bos = model.vocabulary()->specialId(tokenize::SpecialRole::Bos);
    }
    const std::int32_t id = bos.value_or(fallback);
    if (id < 0 || id >= model.spec.vocabSize) {
        throw InvalidArgument(what + ": probe BOS id " + std::to_string(id) +
                              " is outside the vocabulary");
    }
    return id;
}

void checkProbeFits(const model::Model& model, int length, const std::string& what) {
    if (2 * length + 1 > model.spec.maxTokens()) {
        throw InvalidArgument(what + ": a probe of length " + std::to_string(length) +
                              " does not fit the model's positions");
    }
}

std::vector<double> probeStripe(const model::Model& model, const std::vector<std::int32_t>& seq,
                                int length, const CancelToken& cancel) {
    forward::ForwardOptions options;  // the model's default mask, as S7 reads it
    options.cancel = cancel;
    const forward::ForwardResult r = forward::runForward(model, {seq, {}}, options);
    const int k = r.nLayers * r.nHeads;
    std::vector<double> out(static_cast<std::size_t>(k), 0.0);
    for (int h = 0; h < k; ++h) {
        const HeadId id{h / r.nHeads, h % r.nHeads};
        const forward::HeadRecord rec = forward::headRecord(model, r, id, cancel);
        double sum = 0;
        for (int i = length + 1; i <= 2 * length; ++i) {
            sum += rec.probs(i, i - length + 1);
        }
        out[static_cast<std::size_t>(h)] = sum / length;
    }
    return out;
}

std::vector<double> meanStripe(const std::vector<std::vector<double>>& stripes) {
    std::vector<double> total(stripes.front().size(), 0.0);
    for (const auto& s : stripes) {
        for (std::size_t h = 0; h < total.size(); ++h) {
            total[h] += s[h];
        }
    }
    for (double& v : total) {
        v /= static_cast<double>(stripes.size());
    }
    return total;
}

}  // namespace attnscope::analysis::detail
