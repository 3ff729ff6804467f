#include "cli/seq2seq_input.h"

#include <iostream>
#include <map>

#include <CLI/CLI.hpp>

#include "attnscope/base/error.h"
#include "cli/cli_checks.h"

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

// Every id, the last included, against the decoder's vocabulary: the last target token is
// never fed to the decoder (teacher forcing shifts it out), so the pass would not check it and
// the export would record an id the model does not have (issue 30).
std::vector<std::int32_t> targetIdsOf(const model::Model& m, const std::vector<std::int64_t>& ids) {
    std::vector<std::int32_t> out;
    try {
        out = checkedTokenIds(ids);
    } catch (const InvalidArgument& e) {
        // checkedTokenIds names --token-ids; the offending option here is --target-ids.
        std::string what = e.what();
        what.replace(0, std::string("--token-ids").size(), "--target-ids");
        throw InvalidArgument(what);
    }
    const int vocab = m.decoder ? m.decoder->spec.vocabSize : m.spec.vocabSize;
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (out[i] >= vocab) {
            throw InvalidArgument("--target-ids: " + std::to_string(out[i]) + " (id " +
                                  std::to_string(i + 1) + " of " + std::to_string(out.size()) +
                                  ") is outside the decoder's vocabulary [0, " +
                                  std::to_string(vocab) + ")");
        }
    }
    return out;
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
    auto* ids = addIdListOption(command, "--target-ids", args.targetIds,
                                "Encoder-decoder models: the target's token ids, e.g. 713,16,10,2");
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
    auto m = loadModelWithWarnings(
        sentence.modelDir,
        anyText ? model::TokenizerLoading::Full : model::TokenizerLoading::VocabularyOnly,
        activationPrecision(sentence));
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
    if (sentence.text && m.tokenizer) {
        // Tokenized once more only to name a tokenizer file that does not fit the model (or
        // text that gives no tokens) before the pass would report a bare id.
        textTokens(m, *m.tokenizer, *sentence.text);
    }
    if (sentence.text && target.target) {
        return analysis::analyzeSeq2SeqText(m, *sentence.text, *target.target, options);
    }
    if (requireTarget && !target.given()) {
        throw InvalidArgument(sentence.modelDir + ": " + m.spec.modelType +
                              " is an encoder-decoder model: give the target with --target or "
                              "--target-ids, or decode one with --greedy N");
    }
    const std::vector<tokenize::Token> source = sourceTokens(m, sentence);
    if (sentence.text && target.greedy) {
        // The decoded ids themselves, with the text they decode to as the target's.
        const std::vector<std::int32_t> decoded =
            greedyIds(m, tokenize::ids(source), *target.greedy);
        return analysis::analyzeSeq2SeqDecoded(m, *sentence.text, decoded, options);
    }
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
        targetIds = targetIdsOf(m, target.targetIds);
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

void refuseEncoderDecoder(const std::string& command, const std::string& modelDir,
                          const model::Model& m) {
    if (!m.isEncoderDecoder()) {
        return;
    }
    // What each command would need of both stacks, and why one stack is not the answer.
    static const std::map<std::string, std::string> kWhy = {
        {"ablate",
         "ablation removes heads of one stack and measures that stack's own output, so it would "
         "ablate the encoder alone"},
        {"survey",
         "the survey scores one stack's self-attention over a corpus, so it would survey the "
         "encoder alone"},
        {"attribution",
         "the attribution methods follow one stack from its input to its output, so they would "
         "attribute the encoder alone"},
        {"importance",
         "head importance needs the loss of a one-stack language model; an encoder-decoder's "
         "loss runs through both stacks"},
        {"stats",
         "the statistics are of one stack's self-attention, so they would describe the encoder "
         "alone"},
        {"positions",
         "positional heads are found in one stack's self-attention, so it would search the "
         "encoder alone"},
        {"deps",
         "dependency scoring reads one stack's self-attention, so it would score the encoder "
         "alone"},
        {"coref",
         "coreference scoring reads one stack's self-attention, so it would score the encoder "
         "alone"},
    };
    const auto why = kWhy.find(command);
    throw InvalidArgument(
        command + ": " + modelDir + " is an encoder-decoder model (" + m.spec.modelType +
        "), not supported yet: " + (why != kWhy.end() ? why->second : "it runs one stack") +
        "; use attention, render or predict with --target for its three kinds of attention");
}

int decoderStartToken(const model::Model& m) {
    return m.decoder->spec.decoderStartTokenId.value_or(0);
}

}  // namespace attnscope::cli
