// A corpus for the head survey, and the dependency counts of the same passes (survey_corpus.h).
#include "attnscope/analysis/survey_corpus.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <type_traits>

#include "attnscope/analysis/treebank_scoring.h"
#include "attnscope/base/error.h"
#include "attnscope/text/sentence_file.h"
#include "attnscope/tokenize/hf_tokenizer.h"
#include "attnscope/tokenize/pre_tokenizer.h"
#include "attnscope/tokenize/slow_spm_tokenizer.h"
#include "attnscope/tokenize/unicode.h"

namespace attnscope::analysis {

namespace {

const tokenize::Tokenizer& tokenizerOf(const model::Model& model) {
    if (!model.tokenizer) {
        throw InvalidArgument(model.dir.string() + ": no tokenizer to read the corpus with");
    }
    return *model.tokenizer;
}

// Adds a sentence's ids, or counts it too long; true when added.
bool admit(const std::vector<tokenize::Token>& tokens, std::size_t positions,
           std::set<std::int32_t>& special, SurveyCorpus& corpus) {
    if (tokens.size() > positions) {
        ++corpus.tooLong;
        return false;
    }
    for (const tokenize::Token& t : tokens) {
        if (t.special) {
            special.insert(t.id);
        }
    }
    corpus.ids.push_back(tokenize::ids(tokens));
    return true;
}

// A piece as text, without its word-boundary mark: WordPiece's "##", byte-level BPE's stand-in
// characters turned back into bytes (so "Ġ" is a space, and "âĢĶ" is "—"), SentencePiece's "▁".
// Empty when the piece is not valid UTF-8 (a lone byte of a longer character).
std::u32string pieceText(const tokenize::Tokenizer& tokenizer, const std::string& piece) {
    std::string text = piece;
    if (tokenizer.kind() == tokenize::TokenizerKind::ByteLevelBpe) {
        const auto& table = tokenize::byteToUnicode();
        text.clear();
        for (const char32_t cp : tokenize::decodeUtf8(piece, "piece").chars) {
            const auto it = std::find(table.begin(), table.end(), cp);
            if (it == table.end()) {
                return {};  // an added token spelled outside the byte table
            }
            text.push_back(static_cast<char>(it - table.begin()));
        }
    }
    if (tokenize::findInvalidUtf8(text)) {
        return {};
    }
    std::u32string chars = tokenize::decodeUtf8(text, "piece").chars;
    if (tokenizer.kind() == tokenize::TokenizerKind::WordPiece && chars.rfind(U"##", 0) == 0) {
        chars.erase(0, 2);
    } else if (!chars.empty() && (chars.front() == U' ' || chars.front() == U'\u2581')) {
        chars.erase(0, 1);
    }
    return chars;
}

// Each head's better direction for one relation; NaN when neither predicted a word.
std::vector<double> headAccuracy(const DependencyAccumulator& counts, const std::string& relation) {
    const int layers = counts.nLayers();
    const int heads = counts.nHeads();
    std::vector<double> out(static_cast<std::size_t>(layers) * static_cast<std::size_t>(heads),
                            std::numeric_limits<double>::quiet_NaN());
    for (int l = 0; l < layers; ++l) {
        for (int h = 0; h < heads; ++h) {
            double& best = out[static_cast<std::size_t>(l * heads + h)];
            for (const Direction d : {Direction::DepToHead, Direction::HeadToDep}) {
                const double a = counts.counts(relation, {l, h}, d).accuracy();
                if (std::isfinite(a) && !(best >= a)) {
                    best = a;
                }
            }
        }
    }
    return out;
}

}  // namespace

SurveyCorpus surveyCorpusFromLines(const model::Model& model, std::span<const std::string> lines,
                                   const CancelToken& cancel) {
    const tokenize::Tokenizer& tokenizer = tokenizerOf(model);
    SurveyCorpus corpus;
    std::set<std::int32_t> special;
    corpus.read = lines.size();
    for (const std::string& line : lines) {
        cancel.throwIfCancelled();
        admit(tokenizer.encode(line), static_cast<std::size_t>(model.spec.maxTokens()), special,
              corpus);
    }
    corpus.specialIds.assign(special.begin(), special.end());
    return corpus;
}

SurveyCorpus surveyCorpusFromTreebank(const model::Model& model,
                                      std::span<const text::Sentence> sentences,
                                      const CancelToken& cancel) {
    const tokenize::Tokenizer& tokenizer = tokenizerOf(model);
    SurveyCorpus corpus;
    std::set<std::int32_t> special;
    corpus.read = sentences.size();
    const auto positions = static_cast<std::size_t>(model.spec.maxTokens());
    for (const text::Sentence& s : sentences) {
        cancel.throwIfCancelled();
        std::string text;
        GoldSentence gold = goldSentence(s, &text);
        auto tokens = tokenizer.encode(text);
        if (!admit(tokens, positions, special, corpus)) {
            continue;
        }
        if (!s.hasTree()) {
            gold = {};  // surveyed, not scored
        }
        corpus.gold.push_back(std::move(gold));
        corpus.tokens.push_back(std::move(tokens));
    }
    corpus.specialIds.assign(special.begin(), special.end());
    return corpus;
}

SurveyCorpus readSurveyCorpus(const model::Model& model, const std::filesystem::path& path,
                              std::size_t maxSentences, const CancelToken& cancel,
                              const std::vector<text::Sentence>* known) {
    const auto first = [maxSentences](const auto& all) {
        using T = typename std::decay_t<decltype(all)>::value_type;
        const std::size_t n = maxSentences > 0 ? std::min(all.size(), maxSentences) : all.size();
        return std::span<const T>(all.data(), n);
    };
    if (known != nullptr) {
        SurveyCorpus corpus = surveyCorpusFromTreebank(model, first(*known), cancel);
        corpus.inFile = known->size();
        return corpus;
    }
    if (text::isTreebankPath(path)) {
        text::ConlluOptions options;
        options.cancel = cancel;
        const text::ConlluResult treebank = text::readConllu(path, options);
        text::requireSentences(treebank, path.string());
        SurveyCorpus corpus = surveyCorpusFromTreebank(model, first(treebank.sentences), cancel);
        corpus.inFile = treebank.sentences.size();
        corpus.malformed = static_cast<std::size_t>(treebank.skipped);
        return corpus;
    }
    const std::vector<std::string> lines = text::readSentences(path);
    SurveyCorpus corpus = surveyCorpusFromLines(model, first(lines), cancel);
    corpus.inFile = lines.size();
    return corpus;
}

namespace {

// Hugging Face's all_special_ids as far as AttnScope knows them: the roles ([CLS], [SEP], BOS,
// EOS, pad, mask, unk), the added tokens the files mark special, and any id the tokenizer marked
// special while encoding this corpus.
std::vector<std::int32_t> declaredSpecialIds(const tokenize::Tokenizer& tokenizer,
                                             const SurveyCorpus& corpus) {
    std::set<std::int32_t> out(corpus.specialIds.begin(), corpus.specialIds.end());
    using tokenize::SpecialRole;
    for (const SpecialRole role :
         {SpecialRole::Cls, SpecialRole::Sep, SpecialRole::Bos, SpecialRole::Eos, SpecialRole::Pad,
          SpecialRole::Mask, SpecialRole::Unk}) {
        if (const auto id = tokenizer.specialId(role)) {
            out.insert(*id);
        }
    }
    if (const auto* hf = dynamic_cast<const tokenize::HfTokenizer*>(&tokenizer)) {
        for (const tokenize::AddedToken& t : hf->spec().addedTokens) {
            if (t.special) {
                out.insert(t.id);
            }
        }
    } else if (const auto* spm = dynamic_cast<const tokenize::SlowSpmTokenizer*>(&tokenizer)) {
        for (const tokenize::SlowAddedToken& t : spm->spec().added) {
            out.insert(t.id);  // the slow tokenizers' added tokens are all special ones
        }
    }
    return {out.begin(), out.end()};
}

}  // namespace

void addCorpusIds(const model::Model& model, const SurveyCorpus& corpus, SurveyOptions& options) {
    const tokenize::Tokenizer& tokenizer = tokenizerOf(model);
    options.specialIds = declaredSpecialIds(tokenizer, corpus);
    options.punctIds.clear();
    options.periodIds.clear();
    const std::set<std::int32_t> special(options.specialIds.begin(), options.specialIds.end());
    const auto size = static_cast<std::int32_t>(tokenizer.vocabSize());
    for (std::int32_t id = 0; id < size; ++id) {
        const std::string piece = tokenizer.idToToken(id);
        if (piece.empty() || special.count(id) > 0) {
            continue;
        }
        // Clark's General_Analysis.ipynb: punctuation is exactly "." and ",".
        const std::u32string chars = pieceText(tokenizer, piece);
        if (chars == U"." || chars == U",") {
            options.punctIds.push_back(id);
        }
        if (chars == U".") {
            options.periodIds.push_back(id);
        }
    }
    if (!options.bosId) {
        options.bosId = tokenizer.specialId(tokenize::SpecialRole::Bos);
    }
}

SurveyRun runSurvey(const model::Model& model, const SurveyCorpus& corpus,
                    const SurveyOptions& options, const ScoreOptions& scoring,
                    const ShareExecutor& run) {
    if (corpus.hasTrees() &&
        (corpus.gold.size() != corpus.ids.size() || corpus.tokens.size() != corpus.ids.size())) {
        throw InvalidArgument("head survey: the corpus's trees and sentences differ in number");
    }
    SurveyOptions opts = options;
    const std::size_t shares = std::max<std::size_t>(options.shares, 1);
    std::vector<DependencyAccumulator> perShare;
    if (corpus.hasTrees()) {
        perShare.assign(shares,
                        DependencyAccumulator(model.spec.nLayers, model.spec.nHeads, scoring));
        opts.passed = [&](std::size_t share, std::size_t i, const forward::ForwardResult& r) {
            if (options.passed) {
                options.passed(share, i, r);
            }
            if (corpus.gold[i].words.empty()) {
                perShare[share].addSkipped(std::string(kSkipNoTree));
            } else {
                perShare[share].addSentence(corpus.gold[i], corpus.tokens[i], r);
            }
        };
    }
    SurveyRun out;
    out.survey = surveyCorpus(model, corpus.ids, opts, run);
    if (corpus.hasTrees()) {
        DependencyAccumulator total(model.spec.nLayers, model.spec.nHeads, scoring);
        for (const auto& a : perShare) {
            total.merge(a);
        }
        const std::string tooLong = tooLongReason(model);
        for (std::size_t i = 0; i < corpus.tooLong; ++i) {
            total.addSkipped(tooLong);
        }
        out.dependencies = std::move(total);
    }
    return out;
}

DependencyLabels dependencyLabels(const DependencyAccumulator& counts, std::int64_t minCount) {
    DependencyLabels out;
    out.nLayers = counts.nLayers();
    out.nHeads = counts.nHeads();
    for (const RelationRow& row : counts.relationTable(minCount).rows) {
        if (row.relation == kAllRelations) {
            continue;
        }
        out.relations.push_back({row.relation, row.baseline.counts.accuracy(), row.baseline.offset,
                                 headAccuracy(counts, row.relation)});
    }
    return out;
}

}  // namespace attnscope::analysis
