#include "attnscope/analysis/dependency_score.h"

#include <algorithm>

#include "attnscope/base/error.h"

namespace attnscope::analysis {

std::string_view directionName(Direction d) {
    return d == Direction::DepToHead ? "dep->head" : "head<-dep";
}

std::string relationKey(std::string_view label, bool mergeSubtypes) {
    if (mergeSubtypes) {
        label = label.substr(0, label.find(':'));
    }
    return std::string(label);
}

std::vector<int> predictHeads(const Eigen::Ref<const Matrix>& unitMap,
                              const WordAlignment& alignment, Direction direction) {
    const auto nUnits = static_cast<Eigen::Index>(alignment.units.size());
    if (unitMap.rows() != nUnits || unitMap.cols() != nUnits) {
        std::string msg = "predicting heads: word-level map is ";
        msg.append(std::to_string(unitMap.rows()));
        msg.append("x");
        msg.append(std::to_string(unitMap.cols()));
        msg.append("; expected ");
        msg.append(std::to_string(nUnits));
        msg.append(" units square");
        throw InvalidArgument(msg);
    }
    // Scoring runs on the word x word map: row and column of word w are those of its unit,
    // special and whitespace units are dropped (Clark's attn[1:-1, 1:-1]), and w itself is no
    // candidate; neither is a word without a unit (it has no row or column).
    const std::size_t n = alignment.wordUnit.size();
    std::vector<int> predictions(n, kNoPrediction);
    for (std::size_t w = 0; w < n; ++w) {
        const int row = alignment.wordUnit[w];
        if (row < 0) {
            continue;
        }
        float bestValue = 0;  // only attention above zero makes a prediction
        for (std::size_t c = 0; c < n; ++c) {
            const int col = alignment.wordUnit[c];
            if (c == w || col < 0) {
                continue;
            }
            const float v =
                direction == Direction::DepToHead ? unitMap(row, col) : unitMap(col, row);
            if (v > bestValue) {  // strict: ties keep the lowest index
                predictions[w] = static_cast<int>(c) + 1;
                bestValue = v;
            }
        }
    }
    return predictions;
}

std::vector<int> predictByOffset(int nWords, int offset) {
    std::vector<int> predictions(static_cast<std::size_t>(std::max(nWords, 0)));
    for (int i = 0; i < nWords; ++i) {
        predictions[static_cast<std::size_t>(i)] = std::max(0, std::min(i + offset + 1, nWords));
    }
    return predictions;
}

Verdict judgePrediction(const GoldSentence& gold, const std::vector<int>& predictions,
                        std::size_t i, std::string_view relation) {
    const std::size_t n = gold.words.size();
    int p = predictions[i];
    if (p == kNoPrediction) {
        return Verdict::NoPrediction;
    }
    // Clark: `if r == "poss" and p < len(words): if (i < len(words) and words[i+1] == "'s") or
    // words[i+1] == "s'"` — `i < len(words)` is always true; the i + 1 < n guard is ours.
    if (relation == "poss" && p < static_cast<int>(n) && i + 1 < n &&
        (gold.words[i + 1] == "'s" || gold.words[i + 1] == "s'")) {
        p = predictions[i + 1];
        if (p == kNoPrediction) {
            return Verdict::NoPrediction;
        }
    }
    return p == gold.heads[i] ? Verdict::Correct : Verdict::Wrong;
}

}  // namespace attnscope::analysis
