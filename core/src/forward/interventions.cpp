#include "attnscope/forward/interventions.h"

#include <algorithm>
#include <charconv>

#include "attnscope/base/enum_names.h"
#include "attnscope/base/error.h"
#include "attnscope/base/trim.h"
#include "attnscope/forward/forward_pass.h"
#include "head_ablation.h"

namespace attnscope::forward {

std::string ablationKindName(AblationKind kind) {
    static constexpr EnumName<AblationKind> kNames[] = {
        {AblationKind::Zero, "zero"}, {AblationKind::Mean, "mean"}, {AblationKind::Sink, "sink"}};
    return std::string(nameIn(kNames, kind, "?"));
}

std::string describe(const HeadAblation& a) {
    return std::to_string(a.layer) + (a.kvGroup ? "-g" : "-") + std::to_string(a.target) + " (" +
           ablationKindName(a.kind) + ")";
}

namespace {

[[noreturn]] void failItem(std::string_view item) {
    throw InvalidArgument(
        "ablation list: '" + std::string(item) +
        "' is not LAYER-HEAD or LAYER-gGROUP (0-based numbers, e.g. 3-7 or 5-g1)");
}

int parseIndex(std::string_view digits, std::string_view item) {
    int value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) {
        failItem(item);
    }
    return value;
}

}  // namespace

std::vector<HeadAblation> parseAblationList(std::string_view text, AblationKind kind) {
    std::vector<HeadAblation> out;
    std::size_t begin = 0;
    while (begin <= text.size()) {
        const std::size_t end = std::min(text.find(',', begin), text.size());
        const std::string_view item = trimmed(text.substr(begin, end - begin));
        const std::size_t dash = item.find('-');
        if (dash == std::string_view::npos) {
            failItem(item);
        }
        std::string_view target = item.substr(dash + 1);
        const bool group = target.starts_with('g') || target.starts_with('G');
        if (group) {
            target.remove_prefix(1);
        }
        out.push_back(
            {parseIndex(item.substr(0, dash), item), parseIndex(target, item), group, kind});
        begin = end + 1;
    }
    return out;
}

namespace {

void checkMeans(const Interventions& iv, int nLayers, int nHeads, int headDimV) {
    const auto mean = std::find_if(iv.ablations.begin(), iv.ablations.end(),
                                   [](const auto& a) { return a.kind == AblationKind::Mean; });
    if (mean == iv.ablations.end()) {
        return;
    }
    if (!iv.means) {
        throw InvalidArgument("ablation " + describe(*mean) +
                              ": mean ablation needs the heads' means (computeHeadMeans)");
    }
    const HeadMeans& m = *iv.means;
    const auto expected = static_cast<std::size_t>(nLayers) * static_cast<std::size_t>(nHeads) *
                          static_cast<std::size_t>(headDimV);
    if (m.nLayers != nLayers || m.nHeads != nHeads || m.headDimV != headDimV ||
        m.values.size() != expected) {
        throw InvalidArgument("ablation " + describe(*mean) + ": the means are " +
                              std::to_string(m.nLayers) + " x " + std::to_string(m.nHeads) +
                              " heads x " + std::to_string(m.headDimV) + " values, the model has " +
                              std::to_string(nLayers) + " x " + std::to_string(nHeads) + " x " +
                              std::to_string(headDimV));
    }
}

}  // namespace

std::vector<std::optional<AblationKind>> resolveAblations(const Interventions& iv, int nLayers,
                                                          int nHeads, int nKvHeads, int headDimV) {
    const int groups = nKvHeads > 0 ? nKvHeads : nHeads;
    const int groupSize = nHeads / groups;
    std::vector<std::optional<AblationKind>> kinds(static_cast<std::size_t>(nLayers * nHeads));
    std::vector<const HeadAblation*> by(kinds.size(), nullptr);  // which item set each head
    for (const HeadAblation& a : iv.ablations) {
        const int limit = a.kvGroup ? groups : nHeads;
        if (a.layer < 0 || a.layer >= nLayers) {
            throw InvalidArgument("ablation " + describe(a) + ": layer " + std::to_string(a.layer) +
                                  " is outside the model's " + std::to_string(nLayers) + " layers");
        }
        if (a.target < 0 || a.target >= limit) {
            throw InvalidArgument(
                "ablation " + describe(a) + ": " + (a.kvGroup ? "key/value group " : "head ") +
                std::to_string(a.target) + " is outside the layer's " + std::to_string(limit) +
                (a.kvGroup ? " key/value groups" : " heads"));
        }
        const int first = a.kvGroup ? a.target * groupSize : a.target;
        const int count = a.kvGroup ? groupSize : 1;
        for (int head = first; head < first + count; ++head) {
            const auto i = static_cast<std::size_t>(headIndex({a.layer, head}, nHeads));
            if (by[i]) {
                throw InvalidArgument("ablation " + describe(a) + ": head " +
                                      std::to_string(a.layer) + "-" + std::to_string(head) +
                                      " is already ablated by " + describe(*by[i]));
            }
            by[i] = &a;
            kinds[i] = a.kind;
        }
    }
    checkMeans(iv, nLayers, nHeads, headDimV);
    return kinds;
}

int firstAblatedLayer(const std::vector<std::optional<AblationKind>>& resolved, int nLayers,
                      int nHeads) {
    const auto it =
        std::find_if(resolved.begin(), resolved.end(), [](const auto& k) { return k.has_value(); });
    return it == resolved.end() ? nLayers : static_cast<int>((it - resolved.begin()) / nHeads);
}

namespace detail {

void ablateHead(const model::ModelSpec& spec, const Projections& p, HeadId head, AblationKind kind,
                const HeadMeans* means, ops::AttentionOutputs out) {
    switch (kind) {
        case AblationKind::Zero:
            // Written as zeros rather than computed as (probs·0)·V: the same values, without
            // the -0 that a product with negative values leaves.
            out.probs.setZero();
            out.output.setZero();
            out.entropy.setZero();
            break;
        case AblationKind::Sink: {
            const int dv = spec.headDimV;
            const int kv = spec.kvHeadOf(head.head) - p.firstKvHead;
            out.probs.setZero();
            out.probs.col(0).setOnes();
            out.output.rowwise() = p.v.middleCols(kv * dv, dv).row(0);
            out.entropy.setZero();
            break;
        }
        case AblationKind::Mean:
            out.output.rowwise() = means->of(head);
            break;
    }
}

}  // namespace detail

HeadMeans computeHeadMeans(const model::Model& m,
                           const std::vector<std::vector<std::int32_t>>& sequences,
                           const ForwardOptions& options) {
    const model::ModelSpec& spec = m.spec;
    HeadMeans means{spec.nLayers, spec.nHeads, spec.headDimV, {}, 0};
    const auto heads = static_cast<Eigen::Index>(spec.nLayers) * spec.nHeads;
    // Sums in double: a corpus pools thousands of rows per head.
    Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(heads, spec.headDimV);
    ForwardOptions clean = options;
    clean.interventions = {};
    clean.mapBudgetBytes.reset();  // the contexts are read from the recorded maps
    clean.keepLayerStates = false;
    clean.patches = {};
    clean.recordActivations = false;
    clean.progress = nullptr;
    for (std::size_t s = 0; s < sequences.size(); ++s) {
        const ForwardResult r = runForward(m, {sequences[s], {}}, clean);
        for (Eigen::Index h = 0; h < heads; ++h) {
            const HeadId id{static_cast<int>(h / spec.nHeads), static_cast<int>(h % spec.nHeads)};
            sum.row(h) += r.contextOf(id).cast<double>().colwise().sum();
        }
        means.rows += r.nTokens;
        if (options.progress) {
            options.progress(static_cast<double>(s + 1) / static_cast<double>(sequences.size()));
        }
    }
    if (means.rows == 0) {
        throw InvalidArgument("head means: no sequences to average over");
    }
    const Eigen::MatrixXf mean = (sum / static_cast<double>(means.rows)).cast<float>();
    means.values.resize(static_cast<std::size_t>(mean.size()));
    // Row-major [layer][head][value] whatever Eigen's storage order.
    for (Eigen::Index h = 0; h < heads; ++h) {
        for (Eigen::Index d = 0; d < mean.cols(); ++d) {
            means.values[static_cast<std::size_t>(h * mean.cols() + d)] = mean(h, d);
        }
    }
    return means;
}

}  // namespace attnscope::forward
