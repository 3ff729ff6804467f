#include "attnscope/analysis/checkpoint_series.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <system_error>

#include "attnscope/analysis/head_survey.h"
#include "attnscope/base/error.h"
#include "attnscope/forward/head_record.h"
#include "repeated_token_probe.h"

namespace attnscope::analysis {

namespace fs = std::filesystem;

namespace {

// The digits right after `at` in `name`, when there are some (and they fit an int64).
std::optional<std::int64_t> digitsAt(const std::string& name, std::size_t at) {
    std::size_t end = at;
    while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end])) != 0) {
        ++end;
    }
    std::int64_t value = 0;
    const auto [ptr, ec] = std::from_chars(name.data() + at, name.data() + end, value);
    if (end == at || ec != std::errc()) {
        return std::nullopt;
    }
    return value;
}

std::string lowered(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// S7 runs on causal models only (as the survey: NaN for bidirectional ones).
bool causal(const model::Model& model) {
    return model.spec.defaultMask == model::DefaultMask::Causal;
}

}  // namespace

std::optional<std::int64_t> stepOfName(const std::string& original) {
    const std::string name = lowered(original);
    for (const std::string key : {"checkpoint-", "checkpoint_", "step-", "step_", "step"}) {
        const std::size_t at = name.rfind(key);
        if (at != std::string::npos) {
            if (auto step = digitsAt(name, at + key.size())) {
                return step;
            }
        }
    }
    return std::nullopt;
}

std::vector<SeriesCheckpoint> seriesFromFolder(const fs::path& parent) {
    std::error_code ec;
    if (!fs::is_directory(parent, ec)) {
        throw InvalidArgument(parent.string() + ": not a folder of checkpoints");
    }
    std::vector<SeriesCheckpoint> out;
    for (const fs::directory_entry& e : fs::directory_iterator(parent, ec)) {
        const std::string name = e.path().filename().string();
        if (const auto step = stepOfName(name); step && e.is_directory(ec)) {
            out.push_back({e.path(), step, name});
        }
    }
    if (ec) {
        throw InvalidArgument(parent.string() + ": cannot be listed: " + ec.message());
    }
    if (out.size() < 2) {
        throw InvalidArgument(parent.string() + ": " + std::to_string(out.size()) +
                              " checkpoint folders (named step<N> or checkpoint-<N>); a "
                              "series needs two or more");
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
        return *a.step != *b.step ? *a.step < *b.step : a.label < b.label;
    });
    for (std::size_t i = 1; i < out.size(); ++i) {
        if (*out[i].step == *out[i - 1].step) {
            throw InvalidArgument(parent.string() + ": " + out[i - 1].label + " and " +
                                  out[i].label + " are both step " + std::to_string(*out[i].step));
        }
    }
    return out;
}

std::vector<SeriesCheckpoint> seriesFromPaths(const std::vector<fs::path>& paths) {
    if (paths.size() < 2) {
        throw InvalidArgument("a checkpoint series needs two or more model folders or files");
    }
    std::vector<SeriesCheckpoint> out;
    for (const fs::path& p : paths) {
        const fs::path tidy = p.has_filename() ? p : p.parent_path();
        const std::string name = tidy.filename().string();
        out.push_back({p, stepOfName(name), name});
    }
    return out;
}

void checkSameShape(const model::ModelSpec& first, const model::ModelSpec& other,
                    const std::string& what) {
    const auto differs = [&](const char* field, int a, int b) {
        if (a != b) {
            throw InvalidArgument(what + ": " + std::to_string(b) + " " + field +
                                  " where the series' first checkpoint has " + std::to_string(a));
        }
    };
    differs("layers", first.nLayers, other.nLayers);
    differs("heads", first.nHeads, other.nHeads);
    differs("key/value heads", first.nKvHeads, other.nKvHeads);
    differs("vocabulary entries", first.vocabSize, other.vocabSize);
}

void TrainingStatsAccumulator::add(const model::Model& model, const forward::ForwardResult& r) {
    m_rows.add(r);  // checks the shape against the passes before
    const auto heads = static_cast<std::size_t>(r.nLayers) * static_cast<std::size_t>(r.nHeads);
    m_sink.resize(heads, 0.0);
    m_prev.resize(heads, 0.0);
    const int n = r.nTokens;
    for (std::size_t i = 0; i < heads; ++i) {
        const HeadId h{static_cast<int>(i) / r.nHeads, static_cast<int>(i) % r.nHeads};
        const forward::HeadRecord rec = forward::headRecord(model, r, h);
        double mass = 0;
        double prev = 0;
        double sink = 0;
        for (int q = 0; q < n; ++q) {
            mass += rec.probs.row(q).cast<double>().sum();
            prev += q > 0 ? rec.probs(q, q - 1) : 0.0f;
            sink += q > 0 ? rec.probs(q, 0) : 0.0f;
        }
        m_prev[i] += mass > 0 ? prev / mass : 0.0;
        m_sink[i] += n > 1 ? sink / (n - 1) : 0.0;
    }
    ++m_sequences;
    m_sinkSequences += n > 1 ? 1 : 0;
}

InductionProbe drawInductionProbe(const model::Model& first,
                                  const std::vector<std::vector<std::int32_t>>& sequences,
                                  const InductionProbeOptions& options) {
    // As the survey: the length matters only where the probe runs.
    if (options.repeats < 0 || (causal(first) && options.repeats > 0 && options.length < 2)) {
        throw InvalidArgument(
            "induction probe: needs repeats >= 0 and a length of at least 2 "
            "tokens (got " +
            std::to_string(options.repeats) + " repeats of " + std::to_string(options.length) +
            ")");
    }
    InductionProbe out;
    if (!causal(first) || options.repeats == 0) {
        return out;
    }
    detail::checkProbeFits(first, options.length, "induction probe");
    const std::int32_t fallback =
        sequences.empty() || sequences.front().empty() ? 0 : sequences.front().front();
    const std::int32_t bos = detail::probeBosId(first, options.bosId, fallback, "induction probe");
    std::vector<std::int32_t> special = options.specialIds;
    if (const tokenize::TokenVocabulary* vocabulary = first.vocabulary()) {
        using tokenize::SpecialRole;
        for (const SpecialRole role :
             {SpecialRole::Cls, SpecialRole::Sep, SpecialRole::Bos, SpecialRole::Eos,
              SpecialRole::Pad, SpecialRole::Mask, SpecialRole::Unk}) {
            if (const auto id = vocabulary->specialId(role)) {
                special.push_back(*id);
            }
        }
    }
    out.length = options.length;
    for (int r = 0; r < options.repeats; ++r) {
        out.sequences.push_back(
            probeTokens(first.spec.vocabSize, special, options.seed, r, options.length, bos));
    }
    return out;
}

void TrainingStatsAccumulator::addProbe(const model::Model& model, const InductionProbe& probe,
                                        const CancelToken& cancel) {
    if (probe.sequences.empty() || !causal(model)) {
        return;
    }
    // Every checkpoint has the first one's vocabulary (checkSameShape), not its positions.
    detail::checkProbeFits(model, probe.length, "induction probe");
    std::vector<std::vector<double>> stripes;
    for (const std::vector<std::int32_t>& seq : probe.sequences) {
        cancel.throwIfCancelled();
        stripes.push_back(detail::probeStripe(model, seq, probe.length, cancel));
    }
    m_induction = detail::meanStripe(stripes);
}

std::vector<HeadTrainingStats> TrainingStatsAccumulator::result() const {
    std::vector<HeadTrainingStats> out;
    const std::vector<HeadSaturation> rows = m_rows.result();
    for (std::size_t i = 0; i < rows.size(); ++i) {
        HeadTrainingStats h;
        h.meanEntropy = rows[i].meanEntropy;
        h.maxAbsLogit = rows[i].maxAbsLogit;
        h.oneHotShare = rows[i].oneHotShare;
        h.prevTokenScore = static_cast<float>(m_prev[i] / std::max(m_sequences, 1));
        h.sinkMass = static_cast<float>(m_sink[i] / std::max(m_sinkSequences, 1));
        if (i < m_induction.size()) {
            h.inductionProbe = static_cast<float>(m_induction[i]);
        }
        out.push_back(h);
    }
    return out;
}

std::vector<HeadTrainingStats> trainingStats(
    const model::Model& model, const std::vector<std::vector<std::int32_t>>& sequences,
    const forward::ForwardOptions& options, const InductionProbe& probe) {
    TrainingStatsAccumulator acc;
    for (const std::vector<std::int32_t>& ids : sequences) {
        acc.add(model, forward::runForward(model, {ids, {}}, options));
    }
    acc.addProbe(model, probe, options.cancel);
    return acc.result();
}

}  // namespace attnscope::analysis
