// surveyCorpus: the plain passes of a corpus on the caller's shares, folded in sentence order
// (so the result does not depend on the number of shares), and S7's repeated-token probe.
#include <algorithm>
#include <atomic>
#include <optional>
#include <string>

#include "attnscope/analysis/head_survey.h"
#include "attnscope/base/error.h"
#include "attnscope/forward/forward_pass.h"
#include "repeated_token_probe.h"

namespace attnscope::analysis {

namespace {

void checkInputs(const model::Model& model, const std::vector<std::vector<std::int32_t>>& sentences,
                 const SurveyOptions& options) {
    if (sentences.empty()) {
        throw InvalidArgument("head survey: the corpus has no sentence");
    }
    const int vocab = model.spec.vocabSize;
    const int maxTokens = model.spec.maxTokens();
    for (std::size_t s = 0; s < sentences.size(); ++s) {
        const auto& ids = sentences[s];
        if (static_cast<int>(ids.size()) > maxTokens) {
            throw InvalidArgument("head survey: sentence " + std::to_string(s + 1) + " has " +
                                  std::to_string(ids.size()) + " tokens, more than the model's " +
                                  std::to_string(maxTokens));
        }
        for (std::size_t j = 0; j < ids.size(); ++j) {
            if (ids[j] < 0 || ids[j] >= vocab) {
                throw InvalidArgument("head survey: sentence " + std::to_string(s + 1) +
                                      ", token " + std::to_string(j + 1) + ": id " +
                                      std::to_string(ids[j]) + " is outside the vocabulary (" +
                                      std::to_string(vocab) + " ids)");
            }
        }
    }
    // As the reference: the length matters only where the probe runs (causal models, S7).
    const bool causal = model.spec.defaultMask == model::DefaultMask::Causal;
    if (options.probeRepeats < 0 ||
        (causal && options.probeRepeats > 0 && options.probeLength < 2)) {
        throw InvalidArgument(
            "head survey: the probe needs repeats >= 0 and a length of at "
            "least 2 tokens (got " +
            std::to_string(options.probeRepeats) + " repeats of " +
            std::to_string(options.probeLength) + ")");
    }
}

// S7 on every repeat: the mean stripe per head, and the sequences drawn (kept in the survey so
// a file says exactly what the probe read).
std::vector<double> probe(const model::Model& model, const std::vector<std::int32_t>& firstIds,
                          const SurveyOptions& options, const ShareExecutor& run,
                          const std::function<void()>& passDone,
                          std::vector<std::vector<std::int32_t>>& sequences) {
    // S7's order: the option, the model's BOS, the corpus's first id. Where the tokenizer's BOS
    // role could differ from the config's, the CLI/app pass bosId explicitly.
    const std::int32_t bosId = detail::probeBosId(
        model, options.bosId, firstIds.empty() ? 0 : firstIds.front(), "head survey");
    detail::checkProbeFits(model, options.probeLength, "head survey");
    const auto repeats = static_cast<std::size_t>(options.probeRepeats);
    std::vector<std::vector<double>> stripes(repeats);
    sequences.assign(repeats, {});
    const std::size_t n = std::max<std::size_t>(options.shares, 1);
    runShares(n, options.cancel, run, [&](std::size_t share) {
        for (std::size_t r = share; r < repeats; r += n) {
            options.cancel.throwIfCancelled();
            sequences[r] = probeTokens(model.spec.vocabSize, options.specialIds, options.probeSeed,
                                       static_cast<int>(r), options.probeLength, bosId);
            stripes[r] =
                detail::probeStripe(model, sequences[r], options.probeLength, options.cancel);
            passDone();
        }
    });
    return detail::meanStripe(stripes);
}

}  // namespace

HeadSurvey surveyCorpus(const model::Model& model,
                        const std::vector<std::vector<std::int32_t>>& sentences,
                        const SurveyOptions& options, const ShareExecutor& run) {
    checkInputs(model, sentences, options);
    const bool causal = model.spec.defaultMask == model::DefaultMask::Causal;
    const std::size_t probePasses = causal ? static_cast<std::size_t>(options.probeRepeats) : 0;
    const std::size_t totalPasses = sentences.size() + probePasses;
    std::atomic<std::size_t> done{0};
    const auto passDone = [&] {
        const std::size_t d = ++done;
        if (options.progress) {
            options.progress(static_cast<double>(d) / static_cast<double>(totalPasses));
        }
    };
    SurveyAccumulator acc(model.spec.nLayers, model.spec.nHeads, options);
    std::size_t skipped = 0;
    const std::size_t n = std::max<std::size_t>(options.shares, 1);
    // Blocks of sentences bound the memory of results waiting to be folded (a slot holds a
    // heads x heads JS matrix); within a block each share takes the next sentence not yet taken,
    // so a share that drew short sentences does not wait idle for one that drew long ones.
    const std::size_t block = 16 * n;
    for (std::size_t first = 0; first < sentences.size(); first += block) {
        const std::size_t end = std::min(sentences.size(), first + block);
        std::vector<std::optional<SentenceSurvey>> slots(end - first);
        std::atomic<std::size_t> next{first};
        runShares(n, options.cancel, run, [&](std::size_t share) {
            for (std::size_t i = next++; i < end; i = next++) {
                options.cancel.throwIfCancelled();
                if (!sentences[i].empty()) {
                    const auto result = forward::runForward(model, {sentences[i], {}});
                    slots[i - first] = surveySentence(model, result, options);
                    if (options.passed) {
                        options.passed(share, i, result);
                    }
                }
                passDone();
            }
        });
        for (auto& slot : slots) {  // sentence order
            if (slot) {
                acc.add(*slot);
            } else {
                ++skipped;
            }
        }
    }
    HeadSurvey out = acc.finish();
    out.skipped = skipped;
    if (probePasses > 0) {
        out.scores["probe_induction"] =
            probe(model, sentences.front(), options, run, passDone, out.probeSequences);
    }
    return out;
}

}  // namespace attnscope::analysis
