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
    // special and whitespace units are dropped (Clark's attn[1:-1, 1:-1]), and only the word's
    // own cell is zeroed (Clark's `attn[diag] = 0`).
    const std::size_t n = alignment.wordUnit.size();
    std::vector<int> predictions(n, 0);
    for (std::size_t w = 0; w < n; ++w) {
        const int row = alignment.wordUnit[w];
        std::size_t best = 0;
        float bestValue = 0;
        for (std::size_t c = 0; c < n; ++c) {
            const int col = alignment.wordUnit[c];
            // Zeroed, not skipped: when nothing else gets attention, the lowest index wins the
            // tie, possibly w itself, as with NumPy's argmax on the zeroed row.
            float v = direction == Direction::DepToHead ? unitMap(row, col) : unitMap(col, row);
            if (c == w) {
                v = 0;
            }
            if (c == 0 || v > bestValue) {  // strict: ties keep the lowest index
                best = c;
                bestValue = v;
            }
        }
        predictions[w] = static_cast<int>(best) + 1;
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

bool predictionCorrect(const GoldSentence& gold, const std::vector<int>& predictions, std::size_t i,
                       std::string_view relation) {
    const std::size_t n = gold.words.size();
    const int goldHead = gold.heads[i];
    const int p = predictions[i];
    // Clark: `if r == "poss" and p < len(words): if (i < len(words) and words[i+1] == "'s") or
    // words[i+1] == "s'"` — `i < len(words)` is always true; the i + 1 < n guard is ours.
    if (relation == "poss" && p < static_cast<int>(n) && i + 1 < n &&
        (gold.words[i + 1] == "'s" || gold.words[i + 1] == "s'")) {
        return predictions[i + 1] == goldHead;
    }
    return p == goldHead;
}

}  // namespace attnscope::analysis
