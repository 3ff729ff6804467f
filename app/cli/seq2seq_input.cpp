#include "seq2seq_input.h"

#include <iostream>

#include <CLI/CLI.hpp>

#include "attnscope/base/error.h"

namespace attnscope::cli {

namespace {

std::vector<tokenize::Token> tokensFromIds(const model::Model& m,
                                           const std::vector<std::int32_t>& ids) {
    std::vector<tokenize::Token> out;
    for (const std::int32_t id : ids) {
        tokenize::Token t;
        t.id = id;
        t.text = analysis::idPiece(m, id);
        out.push_back(t);
    }
    return out;
}

// The source's tokens: the tokenizer's for --text, the vocabulary's pieces for --token-ids.
std::vector<tokenize::Token> sourceTokens(const model::Model& m, const SentenceArgs& sentence) {
    if (!sentence.text) {
        return tokensFromIds(m, checkedTokenIds(sentence.tokenIds));
    }
    if (!m.tokenizer) {
        throw InvalidArgument(m.dir.string() +
                              ": the model folder has no tokenizer; use --token-ids");
    }
    return withContext("source", [&] { return m.tokenizer->encode(*sentence.text); });
}

std::vector<std::int32_t> targetIdsOf(const std::vector<std::int64_t>& ids) {
    try {
        return checkedTokenIds(ids);
    } catch (const InvalidArgument& e) {
        // checkedTokenIds names --token-ids; the offending option here is --target-ids.
        std::string what = e.what();
        what.replace(0, std::string("--token-ids").size(), "--target-ids");
        throw InvalidArgument(what);
    }
}

std::vector<std::int32_t> greedyIds(const model::Model& m, const std::vector<std::int32_t>& source,
                                    int maxTokens) {
    analysis::GreedyOptions options;
    options.maxTokens = maxTokens;
    const std::vector<std::int32_t> ids = analysis::greedyTarget(m, source, options);
    std::cerr << "attnscope-cli: greedy target (" << ids.size() << " token"
              << (ids.size() == 1 ? "" : "s") << "):";
    for (const std::int32_t id : ids) {
        std::cerr << " " << id;
    }
    std::cerr << "\nattnscope-cli: greedy pieces:";
    for (const std::int32_t id : ids) {
        std::cerr << " " << analysis::tokenLabel(analysis::idPiece(m, id));
    }
    std::cerr << "\n";
    return ids;
}

}  // namespace

void addTargetOptions(CLI::App& command, TargetArgs& args, bool greedy) {
    auto* text = command.add_option("--target", args.target,
                                    "Encoder-decoder models: the target text (teacher-forced)");
    auto* ids = command
                    .add_option("--target-ids", args.targetIds,
                                "Encoder-decoder models: the target's token ids, e.g. 713,16,10,2")
                    ->delimiter(',');
    text->excludes(ids);
    if (greedy) {
        auto* decode = command
                           .add_option("--greedy", args.greedy,
                                       "Encoder-decoder models without a target: decode one "
                                       "greedily, up to N tokens")
                           ->check(CLI::Range(1, 4096));
        decode->excludes(text);
        decode->excludes(ids);
    }
}

std::shared_ptr<const model::Model> loadForTarget(const SentenceArgs& sentence,
                                                  const TargetArgs& target) {
    const bool anyText = sentence.text || target.target;
    auto m =
        loadModelWithWarnings(sentence.modelDir, anyText ? model::TokenizerLoading::Full
                                                         : model::TokenizerLoading::VocabularyOnly);
    if (target.given() && !m->isEncoderDecoder()) {
        const std::string option = target.greedy   ? "--greedy"
                                   : target.target ? "--target"
                                                   : "--target-ids";
        throw InvalidArgument(sentence.modelDir + ": " + option +
                              " needs an encoder-decoder model (T5, BART, mBART, Marian); this " +
                              m->spec.modelType + " model has a single stack");
    }
    return m;
}

analysis::Seq2SeqAnalysis analyzeSeq2Seq(const model::Model& m, const SentenceArgs& sentence,
                                         const TargetArgs& target,
                                         const forward::ForwardOptions& options,
                                         bool requireTarget) {
    if (sentence.text && target.target) {
        return analysis::analyzeSeq2SeqText(m, *sentence.text, *target.target, options);
    }
    if (requireTarget && !target.given()) {
        throw InvalidArgument(sentence.modelDir + ": " + m.spec.modelType +
                              " is an encoder-decoder model: give the target with --target or "
                              "--target-ids, or decode one with --greedy N");
    }
    const std::vector<tokenize::Token> source = sourceTokens(m, sentence);
    std::vector<std::int32_t> targetIds;
    std::vector<tokenize::Token> targetTokens;
    if (target.target) {
        // Only with --token-ids for the source (text and text went to analyzeSeq2SeqText).
        if (m.targetTextTokenizer() == nullptr) {
            throw InvalidArgument(m.dir.string() +
                                  ": the model folder has no tokenizer; use --target-ids");
        }
        targetTokens =
            withContext("target", [&] { return m.targetTextTokenizer()->encode(*target.target); });
        targetIds = tokenize::ids(targetTokens);
    } else if (target.greedy) {
        targetIds = greedyIds(m, tokenize::ids(source), *target.greedy);
    } else {
        targetIds = targetIdsOf(target.targetIds);
    }
    analysis::Seq2SeqAnalysis a =
        analysis::analyzeSeq2SeqIds(m, tokenize::ids(source), targetIds, options);
    if (sentence.text) {
        // The same ids, now with the text's spans, so labels and offsets point into the text.
        a.encoder.text = *sentence.text;
        a.encoder.tokens = source;
        a.cross.keyText = *sentence.text;
        a.cross.keyTokens = source;
    }
    if (target.target) {
        a.targetText = *target.target;
        a.decoder.text = a.cross.text = a.targetText;
        // Decoder rows 1.. read target tokens 0..; row 0 is the start token.
        for (std::size_t t = 0; t + 1 < targetTokens.size(); ++t) {
            a.decoder.tokens[t + 1] = a.cross.tokens[t + 1] = targetTokens[t];
        }
        a.targetTokens = std::move(targetTokens);
    }
    return a;
}

int decoderStartToken(const model::Model& m) {
    return m.decoder->spec.decoderStartTokenId.value_or(0);
}

}  // namespace attnscope::cli
