#include "cli/seq2seq_command.h"

#include <iomanip>
#include <iostream>
#include <sstream>

#include "attnscope/analysis/seq2seq_analysis.h"
#include "attnscope/base/error.h"
#include "attnscope/export/seq2seq_export.h"
#include "attnscope/forward/prediction.h"
#include "cli/seq2seq_input.h"

namespace attnscope::cli {

namespace {

std::string count(int n, const std::string& what) {
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

std::string stackLine(const model::ModelSpec& s) {
    std::ostringstream out;
    out << count(s.nLayers, "layer") << ", " << count(s.nHeads, "head") << " per layer ("
        << s.nLayers * s.nHeads << " in all), head width " << s.headDimK << ", feed-forward "
        << s.dFfn << " " << model::activationName(s.activation) << ", "
        << (s.normPlacement == model::NormPlacement::Pre ? "pre-norm" : "post-norm");
    return out.str();
}

std::string positionsLine(const model::ModelSpec& s) {
    if (s.relativeBuckets > 0) {
        return "relative position buckets (" + std::to_string(s.relativeBuckets) +
               ", max distance " + std::to_string(s.relativeMaxDistance) + ")";
    }
    return s.sinusoidalPositions ? "fixed sinusoidal" : "learned absolute";
}

std::string tokenLine(const model::Model& m, const std::optional<int>& id) {
    if (!id) {
        return "none";
    }
    return std::to_string(*id) + " (" + analysis::idPiece(m, *id) + ")";
}

}  // namespace

void printSeq2SeqInfo(const std::string& modelDir, const model::Model& m) {
    const model::ModelSpec& e = m.spec;
    const model::ModelSpec& d = m.decoder->spec;
    const tokenize::Tokenizer* target = m.targetTokenizer.get();
    std::cout << "model:            " << modelDir << "\n"
              << "architecture:     " << e.modelType << " (encoder-decoder)\n"
              << "encoder:          " << stackLine(e) << "; bidirectional self-attention\n"
              << "decoder:          " << stackLine(d)
              << "; causal self-attention, then cross-attention to the encoder's output\n"
              << "cross-attention:  " << count(d.nLayers, "layer") << " x "
              << count(d.nHeads, "head") << ", decoder rows x source columns\n"
              << "positions:        " << positionsLine(e) << "\n"
              << "hidden size:      " << e.dModel << "\n"
              << "vocabulary:       " << e.vocabSize << "\n"
              << "max tokens:       " << e.maxTokens() << " (source), " << d.maxTokens()
              << " (target)\n"
              << "decoder start:    " << tokenLine(m, d.decoderStartTokenId) << "\n"
              << "end token:        " << tokenLine(m, d.eosTokenId) << "\n"
              << "teacher forcing:  decoder input = start token + target shifted right\n"
              << "parameters:       " << m.parameterCount << "\n"
              << "stored dtype:     " << m.storedDtypes << " (computed in fp32)\n"
              << "tokenizer:        " << (m.tokenizer ? m.tokenizer->describe() : "none") << "\n"
              << "target tokenizer: "
              << (target        ? target->describe()
                  : m.tokenizer ? "the same"
                                : "none")
              << "\n"
              << "prediction head:  " << forward::predictionKindName(m) << "\n";
    for (const std::string& w : m.warnings) {
        std::cerr << "attnscope-cli: warning: " << w << "\n";
    }
}

int runSeq2SeqAttention(const AttentionArgs& args, const model::Model& m) {
    forward::ForwardOptions options = forwardOptions(args.sentence);
    options.scale = args.scale;
    if (options.mask.kind == forward::MaskKind::Causal) {
        options.mask.causalOffset = args.causalOffset;
    }
    const analysis::Seq2SeqAnalysis a =
        analyzeSeq2Seq(m, args.sentence, args.target, options, /*requireTarget=*/true);
    for (const auto* s : {&a.encoder, &a.decoder, &a.cross}) {
        printResultWarnings(s->forward);
    }
    exporting::writeSeq2SeqInterchangeFile(
        args.out, a, {args.sentence.modelDir, m.spec.modelType, decoderStartToken(m)});
    std::cerr << "attnscope-cli: wrote " << a.encoder.forward.nTokens << " source x "
              << a.decoder.forward.nTokens << " target tokens (encoder "
              << a.encoder.forward.nLayers << "x" << a.encoder.forward.nHeads << ", decoder and "
              << "cross " << a.decoder.forward.nLayers << "x" << a.decoder.forward.nHeads
              << " heads) to " << args.out << "\n";
    return 0;
}

int runSeq2SeqPredict(const PredictArgs& args, const model::Model& m) {
    if (!forward::hasPredictionHead(m)) {
        throw InvalidArgument(args.sentence.modelDir +
                              ": this checkpoint has no LM head, so it cannot predict tokens");
    }
    const analysis::Seq2SeqAnalysis a =
        analyzeSeq2Seq(m, args.sentence, args.target, forwardOptions(args.sentence), false);
    const forward::ForwardResult& r = a.decoder.forward;
    const std::vector<int> positions = checkedPositions(args.positions, r.nTokens, "decoder input");
    PredictionTable table;
    std::cout << "# " << forward::predictionKindName(m)
              << ": next target token after each decoder input token\n";
    for (const int pos : positions) {
        const std::string token = a.decoder.label(pos);
        std::cout << std::setw(4) << pos << "  " << token;
        if (static_cast<std::size_t>(pos) < a.targetTokens.size()) {
            std::cout << "  (target: " << a.targetLabel(pos) << ")";
        }
        std::cout << "\n";
        table.add(pos, token, "next", forward::topPredictions(m, r, pos, args.top));
    }
    table.write(args.csv);
    return 0;
}

}  // namespace attnscope::cli
