// attnscope-cli on encoder-decoder models (issue 20): `attention --token-ids --target-ids` writes
// the three kinds of maps that seq2seq_reference.py computed for each fixture input, in the
// groups of writeSeq2SeqInterchangeFile; --text/--target and --greedy agree with the core's
// analyzeSeq2SeqText and greedyTarget; info, predict and render know both stacks; a target on a
// one-stack model, --kind on one, --greedy with --target and greedy decoding without an LM head
// are clear errors with their exit codes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <hdf5.h>
#include <nlohmann/json.hpp>

#include "../support/h5_reader.h"
#include "../support/manifest.h"
#include "../support/reference_file.h"
#include "../support/run_command.h"
#include "../support/test_files.h"
#include "../support/test_names.h"
#include "attnscope/analysis/seq2seq_analysis.h"
#include "attnscope/forward/prediction.h"
#include "attnscope/io/safetensors.h"
#include "attnscope/model/model.h"
#include "attnscope/tokenize/detokenize.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using testing::H5Reader;

const fs::path kRoot = fs::path(ATTNSCOPE_FIXTURE_DIR) / "seq2seq";
const fs::path kTokenized = kRoot / "bart_tok_f32";
constexpr double kTol = 1e-5;

std::vector<std::int64_t> int64s(const H5Reader& h5, const std::string& name) {
    return h5.values<std::int64_t>(name.c_str(), H5T_NATIVE_INT64);
}

std::vector<float> floats(const H5Reader& h5, const std::string& name) {
    return h5.values<float>(name.c_str(), H5T_NATIVE_FLOAT);
}

// Largest |got - want|, and the largest |want| (logits are compared relative to it).
std::pair<double, double> gap(const std::vector<float>& got, const std::vector<float>& want) {
    if (got.size() != want.size()) {
        return {INFINITY, 0.0};
    }
    double worst = 0;
    double largest = 0;
    for (std::size_t k = 0; k < got.size(); ++k) {
        worst = std::max(worst, std::abs(static_cast<double>(got[k]) - want[k]));
        largest = std::max(largest, std::abs(static_cast<double>(want[k])));
    }
    return {worst, largest};
}

std::shared_ptr<const model::Model> load(const fs::path& dir) {
    return model::loadModel(dir);
}

class Seq2SeqCli : public ::testing::TestWithParam<std::string> {};

// Teacher forcing makes the decoder input [start] + target[:-1]; the fixture's decoder inputs
// are [start] + ids, so the target is those ids plus any last token. Inputs with source padding
// are left out: the CLI takes no padding, the reference masks it.
TEST_P(Seq2SeqCli, AttentionIdsMatchTheReferenceKindByKind) {
    const Json entry = testing::manifestEntry(kRoot, GetParam());
    const fs::path dir = kRoot / GetParam();
    const Json& inputs = entry.at("inputs");
    int checked = 0;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
        if (inputs[k].at("source_padding").get<int>() > 0) {
            continue;
        }
        const auto source = inputs[k].at("source").get<std::vector<std::int64_t>>();
        const auto decoder = inputs[k].at("decoder").get<std::vector<std::int64_t>>();
        std::vector<std::int64_t> target(decoder.begin() + 1, decoder.end());
        target.push_back(decoder.front());
        const testing::ScratchFile out("run.h5");
        const auto run = testing::runCli(
            "attention " + testing::shellQuoted(dir) + " --token-ids " + testing::idList(source) +
            " --target-ids " + testing::idList(target) + " --out " + testing::shellQuoted(out));
        const std::string what = GetParam() + " input " + std::to_string(k);
        ASSERT_EQ(run.exitCode, 0) << what << ": " << run.err;
        const io::SafetensorsFile ref(dir / entry.at("references").at(k).get<std::string>());
        const H5Reader h5(out);
        ASSERT_TRUE(h5.ok()) << what;
        EXPECT_EQ(h5.text("file_kind"), "encoder-decoder");
        EXPECT_EQ(int64s(h5, "target_token_ids"), target) << what;
        for (const std::string kind : {"encoder", "decoder", "cross"}) {
            const auto [probGap, probMax] =
                gap(floats(h5, kind + "/attention"), testing::floats(ref, kind + "_attention"));
            EXPECT_LE(probGap, kTol) << what << " " << kind << " attention";
            const auto [logitGap, logitMax] =
                gap(floats(h5, kind + "/logits"), testing::floats(ref, kind + "_logits"));
            EXPECT_LE(logitGap, kTol * std::max(1.0, logitMax)) << what << " " << kind << " logits";
            const std::vector<hsize_t> dims = h5.dims((kind + "/attention").c_str());
            const auto& refShape = ref.tensors().at(kind + "_attention").shape;
            EXPECT_EQ(std::vector<std::int64_t>(dims.begin(), dims.end()), refShape) << what;
            EXPECT_EQ(int64s(h5, kind + "/row_token_ids"), kind == "encoder" ? source : decoder);
            EXPECT_EQ(int64s(h5, kind + "/column_token_ids"), kind == "decoder" ? decoder : source);
        }
        for (const std::string stack : {"encoder", "decoder"}) {
            const auto [hiddenGap, hiddenMax] =
                gap(floats(h5, stack + "/hidden"), testing::floats(ref, stack + "_hidden"));
            EXPECT_LE(hiddenGap, 1e-4 * std::max(1.0, hiddenMax)) << what << " " << stack;
        }
        ++checked;
    }
    EXPECT_GE(checked, 2) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Seq2SeqCli,
                         ::testing::Values("t5_v10_f32", "t5_v11_bf16", "t5_model_f16", "bart_f32",
                                           "mbart_f16", "marian_f32", "marian_untied_bf16",
                                           "bart_tok_f32"),
                         testing::paramName);

// Text on both sides: the file holds exactly what analyzeSeq2SeqText computes, with the tokens'
// spans in each text.
TEST(Seq2SeqCliText, TextAndTargetMatchTheCoreAnalysis) {
    const std::string source = "The head looks at every token.";
    const std::string target = "Heads attend to words.";
    const testing::ScratchFile out("text.h5");
    const auto run =
        testing::runCli("attention " + testing::shellQuoted(kTokenized) + " --text '" + source +
                        "' --target '" + target + "' --out " + testing::shellQuoted(out));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    const auto m = load(kTokenized);
    const analysis::Seq2SeqAnalysis a = analysis::analyzeSeq2SeqText(*m, source, target);
    const H5Reader h5(out);
    EXPECT_EQ(h5.text("source_text"), source);
    EXPECT_EQ(h5.text("target_text"), target);
    EXPECT_EQ(h5.text("model_type"), "bart");
    EXPECT_EQ(h5.number<std::int64_t>("decoder_start_token_id", H5T_NATIVE_INT64), 2);
    for (const auto kind : {forward::AttentionKind::Encoder, forward::AttentionKind::Decoder,
                            forward::AttentionKind::Cross}) {
        const std::string name = forward::attentionKindName(kind);
        const forward::ForwardResult& r = a.of(kind).forward;
        const std::vector<float> want(r.probs.begin(), r.probs.end());
        EXPECT_LE(gap(floats(h5, name + "/attention"), want).first, 1e-7) << name;
    }
    std::vector<std::string> sourcePieces;
    std::vector<std::int64_t> sourceSpans;
    for (const tokenize::Token& t : a.encoder.tokens) {
        sourcePieces.push_back(t.text);
        sourceSpans.push_back(static_cast<std::int64_t>(t.charBegin));
        sourceSpans.push_back(static_cast<std::int64_t>(t.charEnd));
    }
    EXPECT_EQ(h5.strings("cross/column_tokens"), sourcePieces);
    EXPECT_EQ(int64s(h5, "cross/column_offsets"), sourceSpans);
    std::vector<std::int64_t> targetIds;
    for (const tokenize::Token& t : a.targetTokens) {
        targetIds.push_back(t.id);
    }
    EXPECT_EQ(int64s(h5, "target_token_ids"), targetIds);
    // "Heads" is the target's first word: the first target token's span starts at 0.
    EXPECT_EQ(int64s(h5, "target_offsets").at(2), a.targetTokens.at(1).charBegin);
}

// --greedy decodes what greedyTarget decodes, prints it, and runs it as the target.
TEST(Seq2SeqCliText, GreedyTargetIsTheCoresGreedyTarget) {
    const testing::ScratchFile out("greedy.h5");
    const auto run = testing::runCli("attention " + testing::shellQuoted(kTokenized) +
                                     " --text 'Every head looks.' --greedy 6 --out " +
                                     testing::shellQuoted(out));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    const auto m = load(kTokenized);
    analysis::GreedyOptions options;
    options.maxTokens = 6;
    const std::vector<std::int32_t> ids = analysis::greedyTarget(
        *m, tokenize::ids(m->tokenizer->encode("Every head looks.")), options);
    std::string printed;
    for (const std::int32_t id : ids) {
        printed.append(" ").append(std::to_string(id));
    }
    EXPECT_TRUE(
        testing::contains(run.err, "greedy target (" + std::to_string(ids.size()) + " token"))
        << run.err;
    EXPECT_TRUE(testing::contains(run.err, "):" + printed + "\n")) << run.err;
    const H5Reader h5(out);
    EXPECT_EQ(int64s(h5, "target_token_ids"), std::vector<std::int64_t>(ids.begin(), ids.end()));
    // With the text they decode to as the target's (issue 30), as the GUI's Translate shows it.
    EXPECT_EQ(h5.text("target_text"), tokenize::decodeIds(*m->targetTextTokenizer(), ids));
}

struct ErrorCase {
    const char* name;
    std::string args;
    int exitCode;
    std::string message;
};

// Each misuse: its exit code, a message saying what is wrong, and no file.
TEST(Seq2SeqCliErrors, MisusesAreClearErrors) {
    testing::ScratchDir tmp;
    const fs::path out = tmp.path() / "never.h5";
    const fs::path png = tmp.path() / "never.png";
    const std::string bert = testing::shellQuoted(ATTNSCOPE_DEFAULT_MODEL);
    // An attention run on `model` that must refuse before it writes `out`.
    const auto attention = [&out](const fs::path& model, const std::string& options) {
        return "attention " + testing::shellQuoted(model) + options + " --out " +
               testing::shellQuoted(out);
    };
    const std::vector<ErrorCase> cases = {
        {"target on BERT", attention(ATTNSCOPE_DEFAULT_MODEL, " --text 'a b' --target 'c'"), 1,
         "--target needs an encoder-decoder model (T5, BART, mBART, Marian); this bert model "
         "has a single stack"},
        {"target ids on BERT", "predict " + bert + " --token-ids 101,102 --target-ids 5", 1,
         "--target-ids needs an encoder-decoder model"},
        {"kind cross on BERT",
         "render " + bert + " --text 'a b' --kind cross --layer 0 --head 0 --out " +
             testing::shellQuoted(png),
         1, "--kind cross needs an encoder-decoder model"},
        {"greedy with target", attention(kTokenized, " --text 'a' --target 'b' --greedy 3"), 2,
         "--target excludes --greedy"},
        {"greedy without LM head",
         attention(kRoot / "t5_model_f16", " --token-ids 5,6,1 --greedy 3"), 1, "no LM head"},
        {"no target", attention(kTokenized, " --text 'a b'"), 1,
         "give the target with --target or --target-ids, or decode one with --greedy N"},
        {"bad target id", attention(kTokenized, " --token-ids 0,5,2 --target-ids -4"), 1,
         "--target-ids: -4 is not a valid token id"},
        // Issue 30: the last id is never fed to the decoder, so only this check sees it; an
        // empty list was read as the id 0, an empty element dropped.
        {"last target id outside the vocabulary",
         attention(kTokenized, " --token-ids 0,5,2 --target-ids 5,99999"), 1,
         "--target-ids: 99999 (id 2 of 2) is outside the decoder's vocabulary [0, "},
        {"empty target ids", attention(kTokenized, " --token-ids 0,5,2 --target-ids ''"), 2,
         "--target-ids: the id list is empty"},
        {"empty target id element",
         "predict " + testing::shellQuoted(kTokenized) + " --token-ids 0,5,2 --target-ids 5,,6", 2,
         "--target-ids: element 2 of '5,,6' is empty"},
    };
    for (const ErrorCase& c : cases) {
        const auto run = testing::runCli(c.args);
        EXPECT_EQ(run.exitCode, c.exitCode) << c.name << ": " << run.err;
        EXPECT_TRUE(testing::contains(run.err, c.message)) << c.name << ": " << run.err;
        EXPECT_FALSE(testing::contains(run.err, "internal error")) << c.name;
        EXPECT_FALSE(fs::exists(out)) << c.name;
        EXPECT_FALSE(fs::exists(png)) << c.name;
    }
}

// Issue 30: a tokenizer from another model (here one merge and one token beyond vocab_size) is
// named as the cause, where the encoder's pass only said that id 561 is outside the vocabulary.
TEST(Seq2SeqCliErrors, ATokenizerThatDoesNotFitTheModelIsNamed) {
    testing::ScratchDir tmp;
    const fs::path model = tmp.copyOf(kTokenized, "bart");
    testing::editJson(model / "vocab.json", [](auto& j) { j["zz"] = 561; });
    testing::writeFile(model / "merges.txt", testing::readFile(model / "merges.txt") + "z z\n");
    const auto run = testing::runCli("attention " + testing::shellQuoted(model) +
                                     " --text 'a zz' --target 'b' --out " +
                                     testing::shellQuoted(tmp.path() / "never.h5"));
    EXPECT_EQ(run.exitCode, 1) << run.err;
    EXPECT_TRUE(testing::contains(
        run.err, "attnscope-cli: --text: " + model.string() +
                     ": the tokenizer (byte-level BPE (562 tokens, 301 merges) from " +
                     (model / "vocab.json").string() + " + " + (model / "merges.txt").string() +
                     ") gives token 3 ('zz') the id 561, but config.json's vocab_size "
                     "is 561: the tokenizer files do not belong to this model\n"))
        << run.err;
    EXPECT_FALSE(fs::exists(tmp.path() / "never.h5"));
}

// The commands that run one stack refuse encoder-decoder models with the reason (issue 30):
// ablate, survey and attribution used to analyse the encoder alone, importance to blame a
// missing prediction head. One line, exit code 1 as for any input the command cannot take.
TEST(Seq2SeqCliErrors, OneStackCommandsRefuseEncoderDecoderModels) {
    testing::ScratchDir tmp;
    const std::string corpus = testing::shellQuoted(tmp.path() / "corpus.txt");
    testing::writeFile(tmp.path() / "corpus.txt", "The keys to the cabinet.\nHeads look.\n");
    const std::string treebank = testing::shellQuoted(tmp.path() / "gold.conllu");
    testing::writeFile(tmp.path() / "gold.conllu",
                       "# text = Heads look\n"
                       "1\tHeads\thead\tNOUN\t_\t_\t2\tnsubj\t_\tEntity=(e1)\n"
                       "2\tlook\tlook\tVERB\t_\t_\t0\troot\t_\t_\n\n");
    const auto to = [&](const std::string& ext) {
        return " --out " + testing::shellQuoted(tmp.path() / ("out" + ext));
    };
    const fs::path t5 = kRoot / "t5_v10_f32";

    struct Case {
        std::string command;
        fs::path model;
        std::string type;
        std::string args;
        std::string reason;
    };

    const std::vector<Case> cases = {
        {"ablate", kTokenized, "bart", "--text 'The keys' --heads 0-0", "ablate the encoder alone"},
        {"survey", kTokenized, "bart", corpus + to(".csv"), "survey the encoder alone"},
        {"attribution", t5, "t5", "--token-ids 5,6,1 --method rollout" + to(".h5"),
         "attribute the encoder alone"},
        {"importance", kTokenized, "bart", corpus + to(".csv"), "loss runs through both stacks"},
        {"stats", kTokenized, "bart", "--text 'The keys'" + to(".csv"), "the encoder alone"},
        {"positions", t5, "t5",
         "--token-ids 5,6,1 --csv " + testing::shellQuoted(tmp.path() / "out.csv"),
         "search the encoder alone"},
        {"deps", kTokenized, "bart", treebank + to(".csv"), "score the encoder alone"},
        {"coref", kTokenized, "bart", treebank + to(".csv"), "score the encoder alone"},
    };
    for (const Case& c : cases) {
        auto run = testing::runCli(c.command + " " + testing::shellQuoted(c.model) + " " + c.args);
        EXPECT_EQ(run.exitCode, 1) << c.command << ": " << run.err;
        // coref says what it reads before it reads it; the refusal is the one line after that.
        const std::string reading = "attnscope-cli: reading ";
        if (run.err.starts_with(reading)) {
            run.err.erase(0, run.err.find('\n') + 1);
        }
        EXPECT_TRUE(run.err.starts_with("attnscope-cli: " + c.command + ": " + c.model.string() +
                                        " is an encoder-decoder model (" + c.type +
                                        "), not supported yet: "))
            << c.command << ": " << run.err;
        EXPECT_TRUE(testing::contains(run.err,
                                      c.reason + "; use attention, render or predict with --target "
                                                 "for its three kinds of attention\n"))
            << c.command << ": " << run.err;
        EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
        EXPECT_TRUE(run.out.empty()) << c.command << ": " << run.out;
        EXPECT_FALSE(fs::exists(tmp.path() / "out.csv") || fs::exists(tmp.path() / "out.h5"))
            << c.command;
    }
}

TEST(Seq2SeqCliInfo, InfoShowsBothStacksAndTheirTokens) {
    const auto run = testing::runCli("info " + testing::shellQuoted(kTokenized));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_TRUE(testing::contains(run.out, "architecture:     bart (encoder-decoder)\n"))
        << run.out;
    EXPECT_TRUE(
        testing::contains(run.out, "encoder:          2 layers, 2 heads per layer (4 in all)"));
    EXPECT_TRUE(
        testing::contains(run.out, "decoder:          2 layers, 4 heads per layer (8 in all)"));
    EXPECT_TRUE(testing::contains(run.out, "cross-attention:  2 layers x 4 heads"));
    EXPECT_TRUE(testing::contains(run.out, "decoder start:    2 (</s>)\n"));
    EXPECT_TRUE(testing::contains(run.out, "tokenizer:        byte-level BPE"));
    EXPECT_TRUE(testing::contains(run.out, "target tokenizer: the same\n"));
    EXPECT_TRUE(testing::contains(run.out, "prediction head:  sequence-to-sequence LM\n"));
}

// predict --target: one block per decoder row, each row's best candidate the core's.
TEST(Seq2SeqCliPredict, PredictsTheNextTargetTokenAtEachRow) {
    const auto run = testing::runCli("predict " + testing::shellQuoted(kTokenized) +
                                     " --text 'The head looks.' --target 'Heads look.' --top 1");
    ASSERT_EQ(run.exitCode, 0) << run.err;
    const auto m = load(kTokenized);
    const analysis::Seq2SeqAnalysis a =
        analysis::analyzeSeq2SeqText(*m, "The head looks.", "Heads look.");
    ASSERT_GT(a.decoder.forward.nTokens, 2);
    for (int row = 0; row < a.decoder.forward.nTokens; ++row) {
        const auto best = forward::topPredictions(*m, a.decoder.forward, row, 1).front();
        EXPECT_TRUE(testing::contains(run.out, "(id " + std::to_string(best.id) + ")\n")) << row;
    }
    EXPECT_TRUE(testing::contains(run.out, "(target: " + a.targetLabel(0) + ")")) << run.out;
    const auto one =
        testing::runCli("predict " + testing::shellQuoted(kTokenized) +
                        " --text 'The head looks.' --target 'Heads look.' --position 99");
    EXPECT_EQ(one.exitCode, 1);
    EXPECT_TRUE(testing::contains(one.err, "--position: 99 is outside the decoder input's"))
        << one.err;
}

// The width and height stored in a PNG's IHDR chunk (big-endian, bytes 16-23).
std::pair<std::uint32_t, std::uint32_t> pngSize(const std::string& bytes) {
    const auto word = [&](std::size_t at) {
        std::uint32_t v = 0;
        for (std::size_t i = at; i < at + 4; ++i) {
            v = (v << 8) | static_cast<unsigned char>(bytes.at(i));
        }
        return v;
    };
    return {word(16), word(20)};
}

// The largest <rect> of an SVG figure but its background: the frame around a map (its cells
// are smaller runs, the colour bar narrower). Returns {width, height}.
std::pair<double, double> largestRect(const std::string& svg) {
    std::pair<double, double> best{0, 0};
    for (std::size_t at = svg.find("<rect "); at != std::string::npos;
         at = svg.find("<rect ", at + 1)) {
        const auto attribute = [&](const std::string& name) {
            std::string key(" ");  // (not " " + name: GCC 12 -Wrestrict)
            key += name;
            key += "=\"";
            return std::stod(svg.substr(svg.find(key, at) + key.size()));
        };
        const double w = attribute("width");
        const double h = attribute("height");
        const bool page = attribute("x") == 0 && attribute("y") == 0;  // the white background
        if (!page && w * h > best.first * best.second) {
            best = {w, h};
        }
    }
    return best;
}

// A whole <text> element's content as the SVG holds it (a label without < > &).
std::string svgText(const std::string& label) {
    std::string out(">");
    out += label;
    out += "</text>";
    return out;
}

TEST(Seq2SeqCliRender, DrawsEveryKindCrossByDefault) {
    testing::ScratchDir tmp;
    const std::string input = " --text 'The head looks at the keys.' --target 'Heads look.'";
    for (const std::string kind : {"encoder", "decoder", "cross"}) {
        const fs::path png = tmp.path() / (kind + ".png");
        const auto run = testing::runCli(
            "render " + testing::shellQuoted(kTokenized) + input + " --kind " + kind +
            " --layer 1 --head 1 --width 400 --height 300 --out " + testing::shellQuoted(png));
        ASSERT_EQ(run.exitCode, 0) << kind << ": " << run.err;
        const std::string bytes = testing::readFile(png);
        ASSERT_GT(bytes.size(), 1000u) << kind;
        EXPECT_EQ(bytes.substr(1, 3), "PNG") << kind;
        EXPECT_EQ(pngSize(bytes), std::make_pair(400u, 300u)) << kind;
    }
    // No --kind: cross-attention, [target rows, source columns] with square cells, the rows
    // named by the token each produces as the GUI's head view names them.
    const fs::path svg = tmp.path() / "cross.svg";
    const auto run = testing::runCli("render " + testing::shellQuoted(kTokenized) + input +
                                     " --layer 0 --head 1 --out " + testing::shellQuoted(svg));
    ASSERT_EQ(run.exitCode, 0) << run.err;
    const std::string text = testing::readFile(svg);
    const auto m = load(kTokenized);
    const analysis::Seq2SeqAnalysis a =
        analysis::analyzeSeq2SeqText(*m, "The head looks at the keys.", "Heads look.");
    const int rows = a.cross.forward.nTokens;
    const int cols = a.cross.forward.nKeys;
    ASSERT_NE(rows, cols);
    const auto [w, h] = largestRect(text);
    EXPECT_NEAR(w / h, static_cast<double>(cols) / rows, 0.03 * cols / rows) << w << " x " << h;
    EXPECT_TRUE(testing::contains(text, svgText(a.targetLabel(1)))) << a.targetLabel(1);
    EXPECT_TRUE(testing::contains(text, svgText(a.cross.keyLabel(1)))) << a.cross.keyLabel(1);
    EXPECT_TRUE(testing::contains(text, "columns: source tokens"));
}

}  // namespace
}  // namespace attnscope
