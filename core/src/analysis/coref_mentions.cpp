// The scored mentions of a window (R5), their types (R7) and the baselines' verdicts (R8).
#include <algorithm>
#include <array>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <tuple>
#include <utility>

#include <utf8proc.h>

#include "attnscope/analysis/coref_scoring.h"

namespace attnscope::analysis {

namespace {

// D8: Unicode full case folding without normalization, as Python's str.casefold().
std::string caseFolded(std::string_view s) {
    if (s.empty()) {
        return {};
    }
    utf8proc_uint8_t* folded = nullptr;
    const utf8proc_ssize_t n =
        utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(s.data()),
                     static_cast<utf8proc_ssize_t>(s.size()), &folded,
                     static_cast<utf8proc_option_t>(UTF8PROC_CASEFOLD | UTF8PROC_STABLE));
    if (n < 0) {
        return std::string(s);  // readConllu rejects invalid UTF-8, so this is not reached
    }
    std::string out(reinterpret_cast<const char*>(folded), static_cast<std::size_t>(n));
    std::free(folded);
    return out;
}

// D9's features, in this order.
constexpr std::array<std::string_view, 3> kAgreement = {"Number", "Gender", "Person"};

std::array<std::optional<std::string>, 3> agreementFeatures(std::string_view feats) {
    std::array<std::optional<std::string>, 3> out;
    text::findMiscAttribute(feats, [&](std::string_view feature) {
        const std::size_t eq = feature.find('=');
        for (std::size_t k = 0; k < kAgreement.size(); ++k) {
            if (eq != std::string_view::npos && feature.substr(0, eq) == kAgreement[k]) {
                out[k] = std::string(feature.substr(eq + 1));
            }
        }
        return false;
    });
    return out;
}

// One mention of the window with what the baselines compare.
struct WindowMention {
    int index = 0;  // into coref.mentions, so the order of this list is mention order (D7)
    const text::Mention* mention = nullptr;
    int headWord = 0;  // window word
    std::string lemma;
    std::string forms;
    std::array<std::optional<std::string>, 3> agreement;

    bool startsBefore(const WindowMention& o) const {
        return std::pair(mention->sentence, mention->first) <
               std::pair(o.mention->sentence, o.mention->first);
    }
};

std::vector<WindowMention> windowMentions(const CorefCorpus& corpus, const CorefWindow& window) {
    std::vector<int> firstWord;  // window word of each sentence's first word
    int words = 0;
    for (int s = window.firstSentence; s < window.endSentence; ++s) {
        firstWord.push_back(words);
        words += static_cast<int>(corpus.gold[static_cast<std::size_t>(s)].words.size());
    }
    const auto& all = corpus.coref.mentions;
    const auto begin =
        std::lower_bound(all.begin(), all.end(), window.firstSentence,
                         [](const text::Mention& m, int s) { return m.sentence < s; });
    std::vector<WindowMention> out;
    for (auto it = begin; it != all.end() && it->sentence < window.endSentence; ++it) {
        const auto index = static_cast<std::size_t>(it - all.begin());
        const text::Sentence& sentence = corpus.sentences[static_cast<std::size_t>(it->sentence)];
        const int head = corpus.mentionHeads[index];
        const text::Word& headWord = sentence.words[static_cast<std::size_t>(head - 1)];
        WindowMention m;
        m.index = static_cast<int>(index);
        m.mention = &*it;
        m.headWord =
            firstWord[static_cast<std::size_t>(it->sentence - window.firstSentence)] + head - 1;
        m.lemma = caseFolded(headWord.lemma);
        std::string forms;
        for (int w = it->first; w <= it->last; ++w) {
            if (w > it->first) {
                forms.push_back(' ');
            }
            forms.append(sentence.words[static_cast<std::size_t>(w - 1)].form);
        }
        m.forms = caseFolded(forms);
        m.agreement = agreementFeatures(headWord.feats);
        out.push_back(std::move(m));
    }
    return out;
}

MentionGroup mentionType(std::string_view upos) {
    if (upos == "PRON") {
        return MentionGroup::Pronoun;
    }
    return upos == "PROPN" ? MentionGroup::Proper : MentionGroup::Nominal;
}

bool agrees(const WindowMention& a, const WindowMention& b) {
    for (std::size_t k = 0; k < kAgreement.size(); ++k) {
        if (a.agreement[k] && b.agreement[k] && *a.agreement[k] != *b.agreement[k]) {
            return false;
        }
    }
    return true;
}

// D10: starts last, then ends last, then the one earlier in mention order; nullptr for none.
const WindowMention* nearest(const std::vector<const WindowMention*>& candidates) {
    const WindowMention* best = nullptr;
    for (const WindowMention* c : candidates) {
        if (best == nullptr) {
            best = c;
            continue;
        }
        const text::Mention& m = *c->mention;
        const text::Mention& b = *best->mention;
        // Candidates come in mention order, so on a tie the first one seen stays.
        if (std::tuple(m.sentence, m.first, m.last) > std::tuple(b.sentence, b.first, b.last)) {
            best = c;
        }
    }
    return best;
}

template <class Keep>
std::vector<const WindowMention*> only(const std::vector<const WindowMention*>& candidates,
                                       Keep keep) {
    std::vector<const WindowMention*> out;
    std::copy_if(candidates.begin(), candidates.end(), std::back_inserter(out), keep);
    return out;
}

// R8: whether each baseline picks a mention of m's entity.
std::array<bool, kCorefBaselines> baselines(const WindowMention& m,
                                            const std::vector<const WindowMention*>& candidates) {
    const auto right = [&](const WindowMention* pick) {
        return pick != nullptr && pick->mention->entity == m.mention->entity;
    };
    const auto sameLemma =
        only(candidates, [&](const WindowMention* c) { return c->lemma == m.lemma; });
    const auto sieve = [&]() -> const WindowMention* {
        const auto sameForms =
            only(candidates, [&](const WindowMention* c) { return c->forms == m.forms; });
        for (const auto* pass : {&sameForms, &sameLemma}) {
            if (!pass->empty()) {
                return nearest(*pass);
            }
        }
        const auto agreeing =
            only(candidates, [&](const WindowMention* c) { return agrees(m, *c); });
        return nearest(agreeing.empty() ? candidates : agreeing);
    };
    std::array<bool, kCorefBaselines> out{};
    out[static_cast<std::size_t>(CorefBaseline::Nearest)] = right(nearest(candidates));
    out[static_cast<std::size_t>(CorefBaseline::HeadMatch)] = right(nearest(sameLemma));
    out[static_cast<std::size_t>(CorefBaseline::Sieve)] = right(sieve());
    return out;
}

}  // namespace

std::vector<ScoredMention> scoredMentions(const CorefCorpus& corpus, const CorefWindow& window) {
    const std::vector<WindowMention> ms = windowMentions(corpus, window);
    std::vector<ScoredMention> out;
    for (const WindowMention& m : ms) {
        std::vector<const WindowMention*> earlier;
        std::vector<int> antecedents;
        for (const WindowMention& c : ms) {
            if (c.startsBefore(m) && c.headWord != m.headWord) {
                earlier.push_back(&c);
                if (c.mention->entity == m.mention->entity) {
                    antecedents.push_back(c.headWord);
                }
            }
        }
        if (antecedents.empty()) {
            continue;
        }
        std::sort(antecedents.begin(), antecedents.end());
        antecedents.erase(std::unique(antecedents.begin(), antecedents.end()), antecedents.end());
        const text::Mention& mention = *m.mention;
        const int head = corpus.mentionHeads[static_cast<std::size_t>(m.index)];
        const text::Word& headWord = corpus.sentences[static_cast<std::size_t>(mention.sentence)]
                                         .words[static_cast<std::size_t>(head - 1)];
        ScoredMention s;
        s.mention = m.index;
        s.type = mentionType(headWord.upos);
        s.headWord = m.headWord;
        s.antecedentWords = std::move(antecedents);
        s.baselineCorrect = baselines(m, earlier);
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<CorefArc> corefArcs(const CorefCorpus& corpus, const CorefWindow& window) {
    std::vector<CorefArc> out;
    for (const ScoredMention& m : scoredMentions(corpus, window)) {
        // Nearest first: antecedents start before the mention, so later head words are nearer.
        for (auto it = m.antecedentWords.rbegin(); it != m.antecedentWords.rend(); ++it) {
            out.push_back({m.headWord, *it, m.mention});
        }
    }
    return out;
}

}  // namespace attnscope::analysis
