// Small CoNLL-U corpora for the corpus commands' CLI tests (shard_cli_test, batched_cli_test):
// sentences of very different lengths, one longer than the test checkpoints' positions, one
// without a tree, one malformed; coreference documents whose windows differ in size.
#pragma once

#include <string>
#include <vector>

namespace attnscope::testing {

// A CoNLL-U sentence of `n` words, each attached to the previous one (word 1 is the root).
inline std::string chain(int n, const std::string& entity = "") {
    static const char* kForms[] = {"the", "cat", "sat", "on", "mat", "and", "a", "dog"};
    std::string out = "# text = x\n";
    for (int i = 1; i <= n; ++i) {
        const std::string form = kForms[(i * 3 + n) % 8];
        out += std::to_string(i) + "\t" + form + "\t" + form + "\t" + (i % 2 ? "NOUN" : "PRON") +
               "\t_\t_\t" + std::to_string(i - 1) + "\t" +
               (i == 1 ? "root" : (i % 2 ? "det" : "nsubj")) + "\t_\t" +
               (i <= 2 && !entity.empty() ? "Entity=(" + entity + ")" : "_") + "\n";
    }
    return out + "\n";
}

// Lengths from 1 to 14 words, one of 60 words (more than bert_f32's 40 positions), one with HEAD
// "_" (no tree) and one malformed line.
inline std::string treebank() {
    std::string out;
    for (const int n : {3, 14, 1, 60, 7, 2, 12, 5, 9}) {
        out += chain(n);
    }
    out +=
        "# text = no tree\n1\tno\tno\tX\t_\t_\t_\t_\t_\t_\n2\ttree\ttree\tX\t_\t_\t_\t_\t_\t_\n\n";
    out += "1\tbad\n\n";
    return out + chain(4);
}

// Documents whose mentions (the first two words of each sentence, entity 1 or 2) make windows
// of different sizes; one sentence alone exceeds the window.
inline std::string corefTreebank() {
    std::string out;
    int doc = 0;
    for (const std::vector<int>& lengths :
         std::vector<std::vector<int>>{{3, 4, 6}, {60, 5, 2}, {9, 9, 9, 3}, {2, 2}, {12, 4}}) {
        out += "# newdoc id = d" + std::to_string(doc++) + "\n";
        int s = 0;
        for (const int n : lengths) {
            out += chain(n, std::to_string(1 + s++ % 2));
        }
    }
    return out;
}

}  // namespace attnscope::testing
