#include "attnscope/analysis/activation_patching.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "attnscope/base/error.h"
#include "attnscope/forward/prediction.h"

namespace attnscope::analysis {

using forward::ActivationPatch;
using forward::ForwardOptions;
using forward::ForwardResult;
using forward::PatchSite;

namespace {

[[noreturn]] void fail(const std::string& why) {
    throw InvalidArgument("activation patching: " + why);
}

void checkSetup(const model::Model& m, const PatchingSetup& s) {
    if (m.isEncoderDecoder()) {
        fail("it is for one-stack models, not encoder-decoder models");
    }
    if (!forward::hasPredictionHead(m)) {
        fail("the checkpoint has no prediction head to read the logit difference from");
    }
    if (s.clean.empty() || s.clean.size() != s.corrupted.size()) {
        fail("the clean prompt has " + std::to_string(s.clean.size()) +
             " tokens and the corrupted one " + std::to_string(s.corrupted.size()) +
             "; they need the same, non-zero length");
    }
    for (const std::int32_t id : {s.target, s.distractor}) {
        if (id < 0 || id >= m.spec.vocabSize) {
            fail("token id " + std::to_string(id) + " is outside the vocabulary [0, " +
                 std::to_string(m.spec.vocabSize) + ")");
        }
    }
    if (s.target == s.distractor) {
        fail("the target and the distractor are the same token (" + std::to_string(s.target) +
             "), so the logit difference is always 0");
    }
    if (s.position < 0 || s.position >= static_cast<int>(s.clean.size())) {
        fail("metric position " + std::to_string(s.position) + " is outside the prompts' " +
             std::to_string(s.clean.size()) + " tokens");
    }
}

// The options of a patched run: the base's, without recording, with these patches.
ForwardOptions patchedOptions(const PatchingBase& base, forward::Patches patches,
                              const CancelToken& cancel, bool record = false) {
    ForwardOptions o = base.options;
    o.patches = std::move(patches);
    o.recordActivations = record;
    o.keepLayerStates = false;
    o.cancel = cancel;
    o.progress = nullptr;
    return o;
}

// The run a patch goes into (`recipient`) and the one it comes from, for a direction.
std::pair<std::shared_ptr<const ForwardResult>, std::shared_ptr<const ForwardResult>> roles(
    const PatchingBase& base, PatchDirection direction) {
    return direction == PatchDirection::Denoise ? std::pair{base.corrupted, base.clean}
                                                : std::pair{base.clean, base.corrupted};
}

double patchedLd(const model::Model& m, const PatchingBase& base, const ForwardResult& recipient,
                 const ForwardOptions& options) {
    const ForwardResult r =
        forward::runForwardFrom(m, recipient, {recipient.tokenIds, {}}, options);
    return logitDifference(m, r, base.setup);
}

void checkHead(const model::ModelSpec& spec, HeadId h, const std::string& role) {
    if (h.layer < 0 || h.layer >= spec.nLayers || h.head < 0 || h.head >= spec.nHeads) {
        fail(role + " " + h.toString() + " is outside the model's " + std::to_string(spec.nLayers) +
             " layers x " + std::to_string(spec.nHeads) + " heads");
    }
}

void checkPath(const model::ModelSpec& spec, const PathSpec& path) {
    if (path.senders.empty()) {
        fail("a path needs at least one sender head");
    }
    if (path.site != PatchSite::Query && path.site != PatchSite::Key &&
        path.site != PatchSite::Value) {
        fail("a path ends in the receivers' q, k or v, not " + patchSiteName(path.site));
    }
    int lastSender = 0;
    for (const HeadId h : path.senders) {
        checkHead(spec, h, "sender");
        lastSender = std::max(lastSender, h.layer);
    }
    for (const HeadId h : path.receivers) {
        checkHead(spec, h, "receiver");
        if (h.layer <= lastSender) {
            fail("receiver " + h.toString() +
                 " is not in a layer after every sender (the last "
                 "sender is in layer " +
                 std::to_string(lastSender) + ")");
        }
    }
}

}  // namespace

double PatchingBase::normalised(double ld) const {
    const double span = ldClean - ldCorrupted;
    return span == 0 ? std::numeric_limits<double>::quiet_NaN() : (ld - ldCorrupted) / span;
}

double logitDifference(const model::Model& m, const ForwardResult& r, const PatchingSetup& s) {
    const Matrix logits = forward::vocabularyLogits(m, r.hidden.row(s.position));
    return static_cast<double>(logits(0, s.target)) - static_cast<double>(logits(0, s.distractor));
}

PatchingBase runPatchingBase(const model::Model& m, PatchingSetup setup,
                             const ForwardOptions& options) {
    if (setup.position == -1) {
        setup.position = static_cast<int>(setup.clean.size()) - 1;
    }
    checkSetup(m, setup);
    PatchingBase base;
    base.options = options;
    base.options.patches = {};
    base.options.interventions = {};
    base.options.progress = nullptr;
    base.options.recordActivations = true;
    base.setup = std::move(setup);
    base.clean = std::make_shared<const ForwardResult>(
        forward::runForward(m, {base.setup.clean, {}}, base.options));
    base.corrupted = std::make_shared<const ForwardResult>(
        forward::runForward(m, {base.setup.corrupted, {}}, base.options));
    base.ldClean = logitDifference(m, *base.clean, base.setup);
    base.ldCorrupted = logitDifference(m, *base.corrupted, base.setup);
    return base;
}

std::string directionName(PatchDirection direction) {
    return direction == PatchDirection::Denoise ? "denoise" : "noise";
}

std::string sweepName(PatchSweep sweep) {
    switch (sweep) {
        case PatchSweep::Head:
            return "head";
        case PatchSweep::HeadPosition:
            return "head-position";
        case PatchSweep::Residual:
            return "resid";
        case PatchSweep::AttnOut:
            return "attn-out";
        case PatchSweep::MlpOut:
            return "mlp-out";
    }
    return "?";
}

PatchingGrid patchSweep(const model::Model& m, const PatchingBase& base, PatchSweep sweep,
                        PatchDirection direction, const CancelToken& cancel,
                        const ProgressFn& progress) {
    const model::ModelSpec& spec = m.spec;
    const auto n = static_cast<int>(base.setup.clean.size());
    const bool perHead = sweep == PatchSweep::Head || sweep == PatchSweep::HeadPosition;
    PatchingGrid g{sweep,
                   direction,
                   spec.nLayers,
                   perHead ? spec.nHeads : n,
                   sweep == PatchSweep::HeadPosition ? n : 1,
                   {},
                   {}};
    const std::size_t runs = g.index(g.nLayers, 0);
    g.ld.resize(runs);
    g.metric.resize(runs);
    const auto [recipient, donor] = roles(base, direction);
    const PatchSite site = sweep == PatchSweep::Residual  ? PatchSite::Residual
                           : sweep == PatchSweep::AttnOut ? PatchSite::AttnOut
                           : sweep == PatchSweep::MlpOut  ? PatchSite::MlpOut
                                                          : PatchSite::HeadOutput;
    std::size_t done = 0;
    for (int layer = 0; layer < g.nLayers; ++layer) {
        for (int unit = 0; unit < g.nUnits; ++unit) {
            for (int position = 0; position < g.nPositions; ++position) {
                cancel.throwIfCancelled();
                ActivationPatch p{site, layer, perHead ? unit : 0, -1, donor};
                if (sweep == PatchSweep::HeadPosition) {
                    p.position = position;
                } else if (!perHead) {
                    p.position = unit;
                }
                const std::size_t i = g.index(layer, unit, position);
                g.ld[i] = patchedLd(m, base, *recipient, patchedOptions(base, {{p}}, cancel));
                g.metric[i] = base.normalised(g.ld[i]);
                if (progress) {
                    progress(static_cast<double>(++done) / static_cast<double>(runs));
                }
            }
        }
    }
    return g;
}

std::string describe(const PathSpec& path) {
    const auto list = [](const std::vector<HeadId>& heads) {
        std::string text;
        for (const HeadId h : heads) {
            text += text.empty() ? "" : ",";
            text += h.toString();
        }
        return text;
    };
    std::string text = list(path.senders);
    text += "->";
    text += path.receivers.empty() ? "logits" : list(path.receivers);
    if (!path.receivers.empty()) {
        text += ":";
        text += patchSiteName(path.site);
    }
    text += " (";
    text += directionName(path.direction);
    text += ")";
    return text;
}

PathResult pathPatch(const model::Model& m, const PatchingBase& base, const PathSpec& path,
                     const CancelToken& cancel) {
    const model::ModelSpec& spec = m.spec;
    checkPath(spec, path);
    const auto [original, fresh] = roles(base, path.direction);
    int firstSender = spec.nLayers;
    for (const HeadId h : path.senders) {
        firstSender = std::min(firstSender, h.layer);
    }
    // Run 1: senders from the new run, every other head from layer firstSender on frozen (below
    // it, freezing a head to its own value changes nothing).
    forward::Patches frozen;
    for (int layer = firstSender; layer < spec.nLayers; ++layer) {
        for (int head = 0; head < spec.nHeads; ++head) {
            const bool sender = std::find(path.senders.begin(), path.senders.end(),
                                          HeadId{layer, head}) != path.senders.end();
            frozen.items.push_back(
                {PatchSite::HeadOutput, layer, head, -1, sender ? fresh : original});
        }
    }
    auto run1 = std::make_shared<const ForwardResult>(
        forward::runForwardFrom(m, *original, {original->tokenIds, {}},
                                patchedOptions(base, std::move(frozen), cancel, true)));
    if (path.receivers.empty()) {
        const double ld = logitDifference(m, *run1, base.setup);
        return {ld, base.normalised(ld)};
    }
    // Run 2: only the receivers' saved inputs; keys and values per key/value group, once each.
    forward::Patches saved;
    for (const HeadId h : path.receivers) {
        const int unit = path.site == PatchSite::Query ? h.head : spec.kvHeadOf(h.head);
        const bool seen = std::any_of(saved.items.begin(), saved.items.end(), [&](const auto& p) {
            return p.layer == h.layer && p.unit == unit;
        });
        if (!seen) {
            saved.items.push_back({path.site, h.layer, unit, -1, run1});
        }
    }
    const double ld = patchedLd(m, base, *original, patchedOptions(base, std::move(saved), cancel));
    return {ld, base.normalised(ld)};
}

}  // namespace attnscope::analysis
