#include "analyses/patching/patch_tokens.h"

#include "attnscope/forward/prediction.h"

namespace attnscope::app {

int defaultPatchPosition(const model::Model& m, const std::vector<std::int32_t>& clean) {
    const std::vector<int> masks = forward::maskTokenPositions(m, clean);
    return masks.empty() ? static_cast<int>(clean.size()) - 1 : masks.front();
}

void choosePatchTokens(const model::Model& m, analysis::PatchingSetup& s,
                       std::optional<std::int32_t> target, std::optional<std::int32_t> distractor,
                       const forward::ForwardOptions& options) {
    if (target && distractor) {
        s.target = *target;
        s.distractor = *distractor;
        return;
    }
    const forward::ForwardResult clean = forward::runForward(m, {s.clean, {}}, options);
    const auto cleanTop = forward::topPredictions(m, clean, s.position, 2);
    s.target = target.value_or(cleanTop[0].id);
    if (distractor) {
        s.distractor = *distractor;
        return;
    }
    const forward::ForwardResult corrupted = forward::runForward(m, {s.corrupted, {}}, options);
    const std::int32_t corruptedTop = forward::topPredictions(m, corrupted, s.position, 1)[0].id;
    s.distractor = corruptedTop != s.target     ? corruptedTop
                   : cleanTop[0].id != s.target ? cleanTop[0].id
                                                : cleanTop[1].id;
}

std::optional<std::int32_t> vocabularyId(const model::Model& m, const std::string& piece) {
    const tokenize::TokenVocabulary* vocab = m.vocabulary();
    return vocab ? vocab->tokenToId(piece) : std::nullopt;
}

}  // namespace attnscope::app
