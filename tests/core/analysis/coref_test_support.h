// Hand-written CorefUD documents for the coreference scoring tests (issue 16).
#pragma once

#include <string>
#include <string_view>

#include "../support/test_files.h"
#include "attnscope/analysis/coref_scoring.h"

namespace attnscope::analysis::coreftest {

// One CoNLL-U word line; an empty feats or misc is written `_`.
inline std::string line(int id, std::string_view form, std::string_view lemma,
                        std::string_view upos, std::string_view feats, int head,
                        std::string_view misc) {
    std::string out = std::to_string(id);
    for (std::string_view column : {form, lemma, upos, std::string_view("_"),
                                    feats.empty() ? std::string_view("_") : feats}) {
        out.append("\t").append(column);
    }
    out.append("\t").append(std::to_string(head)).append("\t").append(head == 0 ? "root" : "dep");
    out.append("\t_\t").append(misc.empty() ? std::string_view("_") : misc).append("\n");
    return out;
}

// Writes `conllu` to a scratch file and reads it for coreference.
inline CorefCorpus readCorpus(const testing::ScratchDir& dir, const std::string& conllu) {
    const auto path = dir.path() / "coref.conllu";
    testing::writeFile(path, conllu);
    return CorefCorpus::read(path.string());
}

}  // namespace attnscope::analysis::coreftest
