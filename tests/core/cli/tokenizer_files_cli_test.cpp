// attnscope-cli and the tokenizer files of a folder (issue 13): `tokenize` needs only those files,
// no weights; with --token-ids no tokenizer is loaded at all, so a checkpoint whose tokenizer
// AttnScope cannot run (a WordLevel tokenizer.json) still runs every command that takes ids.
#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../support/run_command.h"
#include "../support/shared_data.h"
#include "../support/test_files.h"
#include "../support/test_names.h"

namespace attnscope {
namespace {

namespace fs = std::filesystem;

const fs::path kCheckpoints = fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";
using testing::kSharedTokenizers;

// Removes the weights (model.safetensors, or the shards and their index) from `dir`.
void removeWeights(const fs::path& dir) {
    for (const auto& entry : fs::directory_iterator(dir)) {
        const std::string name = entry.path().filename().string();
        if (name.ends_with(".safetensors") || name.ends_with(".safetensors.index.json")) {
            fs::remove(entry.path());
        }
    }
}

// The HDF5 file's `tokens`, space-separated, as h5py reads them.
std::string h5Tokens(const fs::path& file) {
    const testing::CommandRun r =
        testing::runCommand(std::string("'") + ATTNSCOPE_PYTHON +
                            "' -c 'import h5py, sys; print(\" \".join(t.decode() for t in "
                            "h5py.File(sys.argv[1])[\"tokens\"][:]))' " +
                            testing::shellQuoted(file));
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return r.out;
}

constexpr const char* kText = "The quick brown fox, unaffable, jumped over 3 lazy dogs!";

class TokenizeWithoutWeights : public ::testing::TestWithParam<std::string> {};

TEST_P(TokenizeWithoutWeights, SameTokensAsTheModelFolder) {
    testing::ScratchDir tmp;
    const fs::path full = kCheckpoints / GetParam();
    const fs::path tokenizerOnly = tmp.copyOf(full, "tokenizer_only");
    removeWeights(tokenizerOnly);
    for (const char* flags : {"", " --no-special"}) {
        const testing::CommandRun expected =
            testing::runCli("tokenize " + testing::shellQuoted(full) + " '" + kText + "'" + flags);
        ASSERT_EQ(expected.exitCode, 0) << expected.err;
        const testing::CommandRun r = testing::runCli(
            "tokenize " + testing::shellQuoted(tokenizerOnly) + " '" + kText + "'" + flags);
        ASSERT_EQ(r.exitCode, 0) << r.err;
        EXPECT_EQ(r.out, expected.out) << GetParam() << flags;
    }
}

INSTANTIATE_TEST_SUITE_P(Checkpoints, TokenizeWithoutWeights,
                         ::testing::Values("bert_f32", "gpt2_f32", "roberta_f32",
                                           "gpt2_sharded_bf16", "llama_f32"),
                         testing::paramName);

// The real files, copied without weights, in each form loadTokenizer reads; the ids are Hugging
// Face's for "Hello, world!".
TEST(TokenizeCli, RealTokenizerFilesAlone) {
    ATTNSCOPE_SKIP_WITHOUT(kSharedTokenizers);

    struct Case {
        const char* source;
        std::vector<const char*> files;
        const char* ids;
    };

    const Case cases[] = {
        {"bert-base-uncased", {"tokenizer.json", "config.json"}, "101 7592 1010 2088 999 102"},
        {"bert-base-uncased", {"vocab.txt", "config.json"}, "101 7592 1010 2088 999 102"},
        {"bert-base-uncased", {"vocab.txt"}, "101 7592 1010 2088 999 102"},
        {"gpt2", {"tokenizer.json", "config.json", "tokenizer_config.json"}, "15496 11 995 0"},
        {"gpt2", {"vocab.json", "merges.txt", "config.json"}, "15496 11 995 0"},
        {"roberta-base", {"vocab.json", "merges.txt", "config.json"}, "0 31414 6 232 328 2"},
    };
    for (const Case& c : cases) {
        testing::ScratchDir tmp;
        for (const char* f : c.files) {
            fs::copy_file(kSharedTokenizers / c.source / f, tmp.path() / f);
        }
        const testing::CommandRun r =
            testing::runCli("tokenize " + testing::shellQuoted(tmp.path()) + " 'Hello, world!'");
        ASSERT_EQ(r.exitCode, 0) << c.source << ": " << r.err;
        std::string ids;
        std::istringstream lines(r.out);
        std::string line;
        std::getline(lines, line);  // header
        while (std::getline(lines, line)) {
            std::istringstream fields(line);
            std::string index;
            std::string id;
            fields >> index >> id;
            ids += (ids.empty() ? "" : " ") + id;
        }
        EXPECT_EQ(ids, c.ids) << c.source << " with " << c.files.front();
    }
}

TEST(TokenizeCli, FolderWithoutTokenizerFiles) {
    testing::ScratchDir tmp;
    const testing::CommandRun none =
        testing::runCli("tokenize " + testing::shellQuoted(tmp.path()) + " hello");
    EXPECT_EQ(none.exitCode, 1);
    EXPECT_NE(none.err.find("no tokenizer files"), std::string::npos) << none.err;
    const testing::CommandRun missing =
        testing::runCli("tokenize " + testing::shellQuoted(tmp.path() / "nope") + " hello");
    EXPECT_EQ(missing.exitCode, 1);
    EXPECT_NE(missing.err.find("nope: cannot open: No such file or directory"), std::string::npos)
        << missing.err;
}

// A random-weight GPT-2 beside the WordLevel tokenizer of ChemTSv3's SMILES GPT-2: every command
// that takes --token-ids runs, labelled with the vocabulary's pieces; --text says why it cannot.
TEST(TokenIdsCli, WordLevelTokenizerIsNeverLoaded) {
    ATTNSCOPE_SKIP_WITHOUT(kSharedTokenizers);
    testing::ScratchDir tmp;
    const fs::path dir = tmp.copyOf(kCheckpoints / "gpt2_f32", "smiles_gpt2");
    for (const char* f : {"vocab.json", "merges.txt", "tokenizer_config.json"}) {
        fs::remove(dir / f);
    }
    const fs::path smiles = kSharedTokenizers / "chemtsv3-gpt2_0.2m-smiles";
    for (const char* f : {"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"}) {
        fs::copy_file(smiles / f, dir / f);
    }
    const fs::path h5 = tmp.path() / "x.h5";
    const testing::CommandRun attention =
        testing::runCli("attention " + testing::shellQuoted(dir) + " --token-ids 1,2,3 --out " +
                        testing::shellQuoted(h5));
    ASSERT_EQ(attention.exitCode, 0) << attention.err;
    EXPECT_EQ(attention.err.find("warning"), std::string::npos) << attention.err;
    EXPECT_EQ(h5Tokens(h5), "( ) -\n");

    const std::string ids = " --token-ids 13,17,22,14 ";
    const testing::CommandRun positions =
        testing::runCli("positions " + testing::shellQuoted(dir) + ids);
    EXPECT_EQ(positions.exitCode, 0) << positions.err;
    // <BOS> and <EOS> are special (tokenizer_config.json), so 2 of the 4 tokens are queries.
    EXPECT_NE(positions.out.find("2 queries per head"), std::string::npos) << positions.out;
    const testing::CommandRun predict =
        testing::runCli("predict " + testing::shellQuoted(dir) + ids + "--top 2");
    EXPECT_EQ(predict.exitCode, 0) << predict.err;
    EXPECT_NE(predict.out.find("   1  C\n"), std::string::npos) << predict.out;
    const testing::CommandRun stats =
        testing::runCli("stats " + testing::shellQuoted(dir) + ids + "--out " +
                        testing::shellQuoted(tmp.path() / "s.csv"));
    EXPECT_EQ(stats.exitCode, 0) << stats.err;
    const testing::CommandRun render =
        testing::runCli("render " + testing::shellQuoted(dir) + ids + "--grid --out " +
                        testing::shellQuoted(tmp.path() / "r.png"));
    EXPECT_EQ(render.exitCode, 0) << render.err;

    const testing::CommandRun text =
        testing::runCli("attention " + testing::shellQuoted(dir) + " --text CCO --out " +
                        testing::shellQuoted(tmp.path() / "t.h5"));
    EXPECT_EQ(text.exitCode, 1);
    EXPECT_EQ(std::count(text.err.begin(), text.err.end(), '\n'), 1) << text.err;
    // WordLevel runs now (issue 20), but this vocabulary has no unk_token for an unknown word,
    // which the tokenizers crate refuses too.
    for (const std::string& part : {(dir / "tokenizer.json").string(), std::string("unk_token"),
                                    std::string("cannot be encoded")}) {
        EXPECT_NE(text.err.find(part), std::string::npos) << part << " not in: " << text.err;
    }
    EXPECT_FALSE(fs::exists(tmp.path() / "t.h5"));
}

// Without any tokenizer files the ids label themselves; a broken tokenizer.json is only a
// warning when ids are given, and an error when text is.
TEST(TokenIdsCli, MissingOrBrokenTokenizerFiles) {
    testing::ScratchDir tmp;
    const fs::path dir = tmp.copyOf(kCheckpoints / "gpt2_f32", "bare");
    for (const char* f : {"vocab.json", "merges.txt"}) {
        fs::remove(dir / f);
    }
    const fs::path h5 = tmp.path() / "x.h5";
    const std::string args = " --token-ids 5,6,7 --out " + testing::shellQuoted(h5);
    const testing::CommandRun bare =
        testing::runCli("attention " + testing::shellQuoted(dir) + args);
    ASSERT_EQ(bare.exitCode, 0) << bare.err;
    EXPECT_EQ(h5Tokens(h5), "5 6 7\n");

    testing::writeFile(dir / "tokenizer.json", "{\"model\": {\"vocab\": ");
    const testing::CommandRun broken =
        testing::runCli("attention " + testing::shellQuoted(dir) + args);
    ASSERT_EQ(broken.exitCode, 0) << broken.err;
    EXPECT_NE(broken.err.find("warning"), std::string::npos) << broken.err;
    EXPECT_NE(broken.err.find("tokenizer.json"), std::string::npos) << broken.err;
    EXPECT_EQ(h5Tokens(h5), "5 6 7\n");
    const testing::CommandRun text =
        testing::runCli("attention " + testing::shellQuoted(dir) + " --text hi --out x.h5");
    EXPECT_EQ(text.exitCode, 1);
    EXPECT_NE(text.err.find("tokenizer.json"), std::string::npos) << text.err;
}

}  // namespace
}  // namespace attnscope
