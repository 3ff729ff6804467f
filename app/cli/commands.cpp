#include "cli/commands.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "attnscope/analysis/sentence_analysis.h"
#include "attnscope/base/error.h"
#include "attnscope/export/hdf5_writer.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/forward/prediction.h"
#include "attnscope/io/input_file.h"
#include "attnscope/model/model.h"
#include "attnscope/tokenize/tokenizer.h"
#include "cli/cli_checks.h"
#include "cli/sentence_input.h"
#include "cli/seq2seq_command.h"

namespace attnscope::cli {

namespace {

std::string jsonQuoted(const std::string& s) {
    std::ostringstream out;
    out << '"';
    for (const char c : s) {
        if (c == '"' || c == '\\') {
            out << '\\' << c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            out << "\\u" << std::hex << std::setw(4) << std::setfill('0') << int(c) << std::dec;
        } else {
            out << c;
        }
    }
    out << '"';
    return out.str();
}

constexpr const char* kNoTokenizerFiles =
    "no tokenizer files (tokenizer.json, vocab.txt, vocab.json + merges.txt or tokenizer.model; "
    "in a .gguf file, tokenizer.ggml.* keys)";

const tokenize::Tokenizer& requireTokenizer(const model::Model& m) {
    if (!m.tokenizer) {
        throw InvalidArgument(m.dir.string() + ": " + kNoTokenizerFiles + "; use --token-ids");
    }
    return *m.tokenizer;
}

void printWarnings(const model::Model& m) {
    for (const std::string& w : m.warnings) {
        std::cerr << "attnscope-cli: warning: " << w << "\n";
    }
}

std::string kvHeadsNote(const model::ModelSpec& s) {
    if (s.nKvHeads == s.nHeads) {
        return "";
    }
    return "; " + std::to_string(s.nKvHeads) + " key/value head(s), each shared by " +
           std::to_string(s.nHeads / s.nKvHeads) + " query heads";
}

// "4.6 GiB" / "312.5 MiB" / "12.0 KiB".
std::string byteSize(std::size_t bytes) {
    const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024.0 && u < 4) {
        v /= 1024.0;
        ++u;
    }
    std::ostringstream out;
    out << std::fixed << std::setprecision(u == 0 ? 0 : 1) << v << " " << units[u];
    return out.str();
}

std::string storageNote(const model::Model& m) {
    if (m.blockWeights) {
        return " (quantized matrices kept as ggml blocks, dequantized per block exactly as ggml "
               "does; computed in fp32)";
    }
    return m.halfWeights ? " (matrices and embeddings kept as stored, widened per block; "
                           "computed in fp32)"
                         : " (computed in fp32)";
}

// The weights' memory as held, and what fp32 would take when they are kept as stored.
std::string memoryNote(const model::Model& m) {
    const std::size_t held = m.weights.memoryBytes();
    const auto fp32 = static_cast<std::size_t>(m.parameterCount) * sizeof(float);
    std::string out = byteSize(held) + " of weights in memory";
    if (held + held / 20 < fp32) {
        out += " (fp32 would take " + byteSize(fp32) + ")";
    }
    return out;
}

std::string positionsNote(const model::ModelSpec& s) {
    std::ostringstream out;
    if (s.rope.dims == 0) {
        out << "learned absolute";
    } else {
        out << "rotary (RoPE) on " << s.rope.dims << " of " << s.headDimK
            << " dims per head, theta " << s.rope.theta;
        if (s.rope.scaling == model::RopeScaling::Linear) {
            out << ", linear scaling x" << s.rope.factor;
        } else if (s.rope.scaling == model::RopeScaling::Llama3) {
            out << ", llama3 scaling x" << s.rope.factor;
        } else if (s.rope.scaling == model::RopeScaling::LongRope) {
            out << ", LongRoPE (long factors past " << s.rope.originalMaxPositions
                << " positions, attention factor " << s.rope.attentionFactor << ")";
        }
        if (s.localRope) {
            out << "; local layers theta " << s.localRope->theta;
        }
        if (!s.rope.frequencyFactors.empty()) {
            out << ", frequencies divided by the file's rope_freqs factors (Llama 3 scaling)";
        }
    }
    if (s.slidingWindow) {
        out << "; sliding window " << *s.slidingWindow;
        if (!s.slidingLayers.empty()) {
            const auto local = std::count(s.slidingLayers.begin(), s.slidingLayers.end(), 1);
            out << " in " << local << " of " << s.nLayers << " layers (local)";
        }
    }
    return out.str();
}

// What the later decoders add to the attention: QK-norm, soft-caps, a scale of their own.
std::string attentionNote(const model::ModelSpec& s) {
    std::ostringstream out;
    out << "scale " << s.defaultScale(0);
    if (s.queryPreAttnScalar) {
        out << " (query_pre_attn_scalar " << *s.queryPreAttnScalar << ")";
    }
    if (s.qkNorm != model::QkNorm::None) {
        out << ", QK-norm " << (s.qkNorm == model::QkNorm::PerHead ? "per head" : "over all heads");
    }
    if (s.attnSoftcap > 0.0f) {
        out << ", logits soft-capped at " << s.attnSoftcap;
    }
    if (s.finalLogitSoftcap > 0.0f) {
        out << ", final logits soft-capped at " << s.finalLogitSoftcap;
    }
    return out.str();
}

}  // namespace

int runInfo(const std::string& modelDir) {
    const auto m = model::loadModel(modelDir);
    if (m->isEncoderDecoder()) {
        printSeq2SeqInfo(modelDir, *m);
        return 0;
    }
    const model::ModelSpec& s = m->spec;
    std::cout << "model:            " << modelDir << "\n"
              << "architecture:     " << s.modelType << " ("
              << model::normPlacementName(s.normPlacement)
              << (s.parallelResidual ? ", parallel residual" : "") << ", "
              << (s.defaultMask == model::DefaultMask::Causal ? "causal" : "bidirectional") << ")\n"
              << "layers:           " << s.nLayers << "\n"
              << "heads:            " << s.nHeads << " per layer, " << s.nLayers * s.nHeads
              << " in all" << kvHeadsNote(s) << "\n"
              << "positions:        " << positionsNote(s) << "\n"
              << "attention:        " << attentionNote(s) << "\n"
              << "hidden size:      " << s.dModel << "\n"
              << "head width:       " << s.headDimK << " (keys), " << s.headDimV << " (values)\n"
              << "feed-forward:     " << s.dFfn << ", " << model::activationName(s.activation)
              << "\n"
              << "vocabulary:       " << s.vocabSize << "\n"
              << "max tokens:       " << s.maxTokens() << "\n"
              << "parameters:       " << m->parameterCount << "\n"
              << "stored dtype:     " << m->storedDtypes << storageNote(*m) << "\n"
              << "memory:           " << memoryNote(*m) << "\n"
              << "tokenizer:        " << (m->tokenizer ? m->tokenizer->describe() : "none") << "\n"
              << "prediction head:  " << forward::predictionKindName(*m) << "\n";
    printWarnings(*m);
    return 0;
}

// Reads the tokenizer alone, as loadModel would (config.json's model_type, when there is one,
// picks GPT-2 or RoBERTa style; a .gguf file's tokenizer.ggml.* keys): a folder of tokenizer
// files without weights is enough.
int runTokenize(const std::string& modelDir, const std::string& text, bool addSpecial) {
    const auto tokenizer = model::loadModelTokenizer(modelDir);
    if (!tokenizer) {
        throw InvalidArgument(modelDir + ": " + kNoTokenizerFiles);
    }
    const auto tokens = tokenizer->encode(text, addSpecial);
    std::cout << "index\tid\ttoken\tchar_begin\tchar_end\n";
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const tokenize::Token& t = tokens[i];
        std::cout << i << "\t" << t.id << "\t" << jsonQuoted(t.text) << "\t" << t.charBegin << "\t"
                  << t.charEnd << "\n";
    }
    return 0;
}

CLI::App* addAttentionCommand(CLI::App& app, AttentionArgs& args) {
    auto* attn = app.add_subcommand("attention", "Run the model and write every head to HDF5");
    addSentenceOptions(*attn, args.sentence);
    attn->add_option("--out", args.out, "Output file (.h5)")->required();
    attn->add_option("--causal-offset", args.causalOffset,
                     "Causal offset: query i sees key j iff j <= i + offset");
    attn->add_option("--scale", args.scale, "Logit scale (default 1/sqrt(d_k))")
        ->check(CLI::Validator(
            [](const std::string& value) {
                float v = 0;
                const bool finite = CLI::detail::lexical_cast(value, v) && std::isfinite(v);
                return finite ? std::string() : "a finite number is needed, not " + value;
            },
            "FINITE"));
    addTargetOptions(*attn, args.target, /*greedy=*/true);
    attn->callback([&args] { checkSentenceArgs(args.sentence); });
    return attn;
}

int runAttention(const AttentionArgs& args) {
    checkOutput("--out", args.out);
    const SentenceArgs& sentence = args.sentence;
    const auto m = loadForTarget(sentence, args.target);
    if (m->isEncoderDecoder()) {
        return runSeq2SeqAttention(args, *m);
    }
    forward::ForwardInput input;
    exporting::ExportTokens exportTokens;
    if (sentence.text) {
        const std::vector<tokenize::Token> tokens =
            textTokens(*m, requireTokenizer(*m), *sentence.text);
        for (const tokenize::Token& t : tokens) {
            input.tokenIds.push_back(t.id);
            exportTokens.text.push_back(t.text);
            exportTokens.offsets.emplace_back(t.charBegin, t.charEnd);
        }
    } else {
        input.tokenIds = checkedTokenIds(sentence.tokenIds);
        for (const std::int32_t id : input.tokenIds) {
            exportTokens.text.push_back(analysis::idPiece(*m, id));
            exportTokens.offsets.emplace_back(0, 0);
        }
    }
    forward::ForwardOptions options = forwardOptions(sentence);
    options.scale = args.scale;
    if (options.mask.kind == forward::MaskKind::Causal) {
        options.mask.causalOffset = args.causalOffset;
    }
    const forward::ForwardResult result = forward::runForward(*m, input, options);
    printResultWarnings(result);
    exporting::writeInterchangeFile(
        args.out, result, exportTokens,
        {sentence.modelDir, m->spec.modelType, sentence.text.value_or("")});
    std::cerr << "attnscope-cli: wrote " << result.nLayers << " layers x " << result.nHeads
              << " heads x " << result.nTokens << " tokens to " << args.out << "\n";
    return 0;
}

}  // namespace attnscope::cli
