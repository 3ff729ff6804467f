// The GGUF reader (issue 32): a valid file read back value by value, and a table of named
// corruptions (as llama.cpp's own GGUF tests break files), each with the exact message the
// user reads. "<f>" in an expected message stands for the file's path.
#include "attnscope/io/gguf.h"

#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../support/expect_error.h"
#include "../support/gguf_builder.h"
#include "../support/shared_data.h"
#include "../support/test_files.h"
#include "attnscope/base/error.h"

namespace attnscope::io {
namespace {

namespace fs = std::filesystem;
using testing::GgufBuilder;
using testing::ScratchDir;
using B = GgufBuilder;

std::string q8Blocks(int n) {
    std::string s;
    for (int i = 0; i < n; ++i) {
        s += B::raw<std::uint16_t>(0x3C00) + std::string(32, static_cast<char>(i + 1));
    }
    return s;
}

// A valid file: one string key and one Q8_0 tensor of two rows of 32 values. Its layout:
// header 24 bytes, the key ends at byte 69, the tensor info at 110, the data starts at 128.
GgufBuilder base() {
    return GgufBuilder().text("general.architecture", "llama").tensor("w", {32, 2}, 8, q8Blocks(2));
}

std::string withU64At(std::string bytes, std::size_t at, std::uint64_t v) {
    std::memcpy(bytes.data() + at, &v, 8);
    return bytes;
}

std::string nestedArrays(int depth) {
    std::string v = B::raw<std::uint32_t>(B::U8) + B::raw<std::uint64_t>(0);
    for (int i = 1; i < depth; ++i) {
        v = B::raw<std::uint32_t>(B::Array) + B::raw<std::uint64_t>(1) + v;
    }
    return v;
}

class GgufFiles : public ::testing::Test {
protected:
    fs::path write(const std::string& bytes, const std::string& name = "model.gguf") {
        const fs::path p = m_dir.path() / name;
        testing::writeFile(p, bytes);
        return p;
    }

    // The message opening `bytes` gives, with the file's path as "<f>".
    std::string messageFor(const std::string& bytes) {
        const fs::path p = write(bytes);
        std::string msg = testing::errorMessage<FormatError>([&] { GgufFile f(p); });
        for (std::size_t at; (at = msg.find(p.string())) != std::string::npos;) {
            msg.replace(at, p.string().size(), "<f>");
        }
        return msg;
    }

    ScratchDir m_dir;
};

TEST_F(GgufFiles, ReadsEveryValueTypeAndTheTensorLayout) {
    std::string arr = B::raw<std::uint32_t>(B::I16) + B::raw<std::uint64_t>(3) +
                      B::raw<std::int16_t>(-1) + B::raw<std::int16_t>(2) + B::raw<std::int16_t>(3);
    const std::string bytes = GgufBuilder()
                                  .kv("u8", B::U8, B::raw<std::uint8_t>(200))
                                  .kv("i8", B::I8, B::raw<std::int8_t>(-5))
                                  .kv("u16", B::U16, B::raw<std::uint16_t>(60000))
                                  .kv("i16", B::I16, B::raw<std::int16_t>(-300))
                                  .u32("u32", 4000000000u)
                                  .kv("i32", B::I32, B::raw<std::int32_t>(-7))
                                  .f32("f32", 0.5f)
                                  .kv("bool", B::Bool, B::raw<std::uint8_t>(1))
                                  .text("string", "héllo")
                                  .kv("array", B::Array, arr)
                                  .kv("u64", B::U64, B::raw<std::uint64_t>(~0ull))
                                  .kv("i64", B::I64, B::raw<std::int64_t>(-9))
                                  .kv("f64", B::F64, B::raw(0.25))
                                  .strings("names", {"a", "", "ccc"})
                                  .kv("nested", B::Array, nestedArrays(3))
                                  .u32("general.alignment", 64)
                                  .alignment(64)
                                  .tensor("t.bias", {5}, 0, std::string(20, '\0'))
                                  .tensor("t.weight", {32, 3, 2}, 8, q8Blocks(6))
                                  .bytes();
    const GgufFile f(write(bytes));
    EXPECT_EQ(f.version(), 3u);
    EXPECT_EQ(f.alignment(), 64u);
    EXPECT_EQ(f.metadata().size(), 16u);
    EXPECT_EQ(f.metadata()[0].first, "u8");
    EXPECT_EQ(f.unsignedAt("u8"), 200u);
    EXPECT_EQ(f.find("i8")->asSigned(), -5);
    EXPECT_EQ(f.find("i8")->asUnsigned(), std::nullopt);
    EXPECT_EQ(f.unsignedAt("u16"), 60000u);
    EXPECT_EQ(f.find("i16")->asSigned(), -300);
    EXPECT_EQ(f.unsignedAt("u32"), 4000000000u);
    EXPECT_EQ(f.find("i32")->asSigned(), -7);
    EXPECT_EQ(f.numberAt("f32"), 0.5);
    EXPECT_EQ(f.boolAt("bool"), true);
    EXPECT_EQ(f.stringAt("string"), "héllo");
    EXPECT_EQ(f.numberArray("array"), (std::vector<double>{-1, 2, 3}));
    EXPECT_EQ(f.unsignedAt("u64"), ~0ull);
    EXPECT_EQ(f.find("u64")->asSigned(), std::nullopt);
    EXPECT_EQ(f.find("i64")->asSigned(), -9);
    EXPECT_EQ(f.numberAt("f64"), 0.25);
    EXPECT_EQ(f.stringArray("names"), (std::vector<std::string_view>{"a", "", "ccc"}));
    EXPECT_EQ(f.find("nested")->describe(), "array of 1 array");
    EXPECT_EQ(f.unsignedAt("absent"), std::nullopt);
    EXPECT_TRUE(f.stringArray("absent").empty());

    ASSERT_EQ(f.tensors().size(), 2u);
    const GgufTensor* w = f.tensor("t.weight");
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->type, GgmlType::Q8_0);
    EXPECT_EQ(w->rowLength(), 32);
    EXPECT_EQ(w->rows(), 6);
    EXPECT_EQ(w->torchShape(), (std::vector<std::int64_t>{2, 3, 32}));
    EXPECT_EQ(w->offset, 64u);  // the 20-byte bias, padded to the alignment
    EXPECT_EQ(w->bytes.size(), 6u * 34u);
    EXPECT_EQ(f.dataOffset() % 64, 0u);
    EXPECT_EQ(static_cast<char>(w->bytes[2]), '\x01');
    EXPECT_EQ(f.tensor("absent"), nullptr);
}

TEST_F(GgufFiles, TypedReadsNameTheKeyTheTypeAndTheValue) {
    const GgufFile f(write(base().u32("n", 3).kv("neg", B::I32, B::raw<std::int32_t>(-2)).bytes()));
    const std::string p = f.path().string();
    EXPECT_EQ(
        testing::errorMessage<FormatError>([&] { (void)f.unsignedAt("general.architecture"); }),
        p + ": key 'general.architecture': expected a non-negative integer, found string "
            "'llama'");
    EXPECT_EQ(testing::errorMessage<FormatError>([&] { (void)f.unsignedAt("neg"); }),
              p + ": key 'neg': expected a non-negative integer, found i32 -2");
    EXPECT_EQ(testing::errorMessage<FormatError>([&] { (void)f.stringAt("n"); }),
              p + ": key 'n': expected a string, found u32 3");
    EXPECT_EQ(testing::errorMessage<FormatError>([&] { (void)f.stringArray("n"); }),
              p + ": key 'n': expected an array of string, found u32 3");
}

struct Corruption {
    const char* name;
    std::string (*bytes)();
    const char* message;
};

const Corruption kCorruptions[] = {
    {"EmptyFile", [] { return std::string(); },
     "<f>: byte 0: file is 0 bytes, too short for a GGUF header (24 bytes)"},
    {"BadMagic", [] { return "GGML" + base().bytes().substr(4); },
     "<f>: byte 0: bad magic 'GGML', expected 'GGUF' (not a GGUF file)"},
    {"BinaryMagic", [] { return std::string("\x7f\x45\x00\x01", 4) + base().bytes().substr(4); },
     "<f>: byte 0: bad magic 0x7f 0x45 0x00 0x01, expected 'GGUF' (not a GGUF file)"},
    {"HtmlPage",
     [] { return std::string("\n<!DOCTYPE html>\n<html><head><title>Hugging Face</title>"); },
     "<f>: byte 0: this is an HTML page (a download that saved a web page instead of the "
     "model?), not a GGUF file"},
    {"GitLfsPointer",
     [] {
         return std::string(
             "version https://git-lfs.github.com/spec/v1\noid sha256:"
             "4f1b0c\nsize 4368439296\n");
     },
     "<f>: byte 0: this is a Git LFS pointer, not the model's data (fetch the file itself, "
     "e.g. with `git lfs pull`)"},
    {"Version1", [] { return base().version(1).bytes(); },
     "<f>: byte 4: GGUF version 1 is not supported (llama.cpp dropped it too; convert the "
     "model again)"},
    {"Version4", [] { return base().version(4).bytes(); },
     "<f>: byte 4: GGUF version 4 is not supported (expected 2 or 3)"},
    {"BigEndian", [] { return base().version(0x03000000).bytes(); },
     "<f>: byte 4: a big-endian GGUF file (version 3, byte-swapped); only little-endian files "
     "are supported"},
    {"NegativeTensorCount", [] { return withU64At(base().bytes(), 8, ~0ull); },
     "<f>: byte 8: tensor count 18446744073709551615 cannot fit in the 172 bytes left (each "
     "takes at least 24)"},
    {"HugeKeyCount", [] { return withU64At(base().bytes(), 16, 1ull << 40); },
     "<f>: byte 16: metadata count 1099511627776 cannot fit in the 172 bytes left (each takes "
     "at least 14)"},
    {"DuplicateKey", [] { return base().text("general.architecture", "qwen2").bytes(); },
     "<f>: key 'general.architecture': duplicate key (byte 69)"},
    {"EmptyKey", [] { return base().u32("", 1).bytes(); },
     "<f>: byte 69: metadata pair #1 has an empty key"},
    {"UnknownValueType", [] { return base().kv("x", 13, B::raw<std::uint32_t>(0)).bytes(); },
     "<f>: key 'x': unknown value type 13 (expected 0–12)"},
    {"BadBool", [] { return base().kv("flag", B::Bool, B::raw<std::uint8_t>(7)).bytes(); },
     "<f>: key 'flag': byte 85: boolean is 7, expected 0 or 1"},
    {"HugeStringLength", [] { return withU64At(base().bytes(), 56, 1ull << 62); },
     "<f>: byte 56: key 'general.architecture': length 4611686018427387904 exceeds the limit of "
     "1073741824 bytes"},
    {"StringPastTheEnd", [] { return withU64At(base().bytes(), 56, 5000); },
     "<f>: byte 56: key 'general.architecture': length 5000 exceeds the 132 bytes left in the "
     "file"},
    {"HugeArrayCount",
     [] { return base().kv("a", B::Array, B::raw<std::uint32_t>(B::U32) + B::raw(~0ull)).bytes(); },
     "<f>: key 'a': byte 86: array of 18446744073709551615 u32 cannot fit in the 134 bytes left"},
    {"NestedTooDeep", [] { return base().kv("deep", B::Array, nestedArrays(9)).bytes(); },
     "<f>: key 'deep'[0][0][0][0][0][0][0][0]: arrays nested more than 8 deep"},
    {"AlignmentNotPowerOfTwo", [] { return base().u32("general.alignment", 48).bytes(); },
     "<f>: key 'general.alignment': alignment 48 is not a power of two"},
    {"AlignmentZero", [] { return base().u32("general.alignment", 0).bytes(); },
     "<f>: key 'general.alignment': alignment 0 is not a power of two"},
    {"AlignmentWrongType",
     [] { return base().kv("general.alignment", B::U64, B::raw<std::uint64_t>(32)).bytes(); },
     "<f>: key 'general.alignment': expected u32, found u64 32"},
    {"TensorNameTooLong",
     [] {
         return GgufBuilder().tensor(std::string(64, 'n'), {32}, 0, std::string(128, '\0')).bytes();
     },
     "<f>: byte 24: tensor #0: name of 64 bytes is longer than ggml's limit of 63"},
    {"DuplicateTensorName",
     [] { return base().tensor("w", {32}, 0, std::string(128, '\0')).bytes(); },
     "<f>: tensor 'w': duplicate tensor name (byte 110)"},
    {"FiveDimensions",
     [] {
         return GgufBuilder().tensor("t", {1, 1, 1, 1, 1}, 0, std::string(4, '\0')).bytes();
     },
     "<f>: tensor 't': 5 dimensions, ggml allows at most 4"},
    {"RemovedType",
     [] { return GgufBuilder().tensor("t", {32}, 4, std::string(20, '\0')).bytes(); },
     "<f>: tensor 't': unknown ggml type 4"},
    {"RowNotWholeBlocks",
     [] {
         return GgufBuilder().tensor("t", {100, 2}, 12, std::string(288, '\0')).bytes();
     },
     "<f>: tensor 't': row length 100 is not a multiple of Q4_K's block of 256 values"},
    {"ElementCountOverflow",
     [] {
         return GgufBuilder().tensor("t", {1ull << 32, 1ull << 32}, 0, "").bytes();
     },
     "<f>: tensor 't': element count: size overflow (4294967296 * 4294967296)"},
    {"RowsBehindZeroLength",
     [] {
         return GgufBuilder().tensor("t", {0, 1ull << 63}, 0, "").bytes();
     },
     "<f>: tensor 't': 2 dimensions hold more than 2^63 − 1 values"},
    {"ByteSizeOverflow", [] { return GgufBuilder().tensor("t", {1ull << 62}, 0, "").bytes(); },
     "<f>: tensor 't': byte size: size overflow (4611686018427387904 * 4)"},
    {"MisalignedOffset",
     [] { return base().tensor("v", {32}, 0, std::string(128, '\0'), 80).bytes(); },
     "<f>: tensor 'v': offset 80 is not a multiple of the alignment 32"},
    {"TruncatedData",
     [] {
         std::string b = base().bytes();
         return b.substr(0, b.size() - 10);
     },
     "<f>: tensor 'w': data [0, 68) lies outside the 58-byte data section (truncated file?)"},
    {"TruncatedInTensorInfos", [] { return base().bytes().substr(0, 100); },
     "<f>: byte 98: file ends inside the type of tensor 'w' (needs 4 bytes, 2 left)"},
    {"TruncatedBeforeData", [] { return base().bytes().substr(0, 112); },
     "<f>: byte 110: the data section would start at byte 128, past the end of the 112-byte "
     "file (truncated?)"},
    {"Overlap", [] { return base().tensor("v", {32}, 0, std::string(128, '\0'), 0).bytes(); },
     "<f>: tensor 'v': data overlaps tensor 'w'"},
};

class GgufCorruption : public GgufFiles, public ::testing::WithParamInterface<Corruption> {};

TEST_P(GgufCorruption, IsRefusedWithItsMessage) {
    EXPECT_EQ(messageFor(GetParam().bytes()), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(Table, GgufCorruption, ::testing::ValuesIn(kCorruptions),
                         [](const auto& param) { return std::string(param.param.name); });

TEST_F(GgufFiles, TheBaseOfTheTableIsValid) {
    const GgufFile f(write(base().bytes()));
    EXPECT_EQ(f.dataOffset(), 128u);
    EXPECT_EQ(f.fileSize(), 196u);
}

// llama.cpp's own vocabulary-only test files (../shared): real metadata written by its
// converter, tokenizer arrays of 30,000–100,000 entries, no tensors.
TEST(GgufRealFiles, LlamaCppVocabFilesOpen) {
    const fs::path dir = testing::kSharedTokenizers / "llama.cpp-vocab";
    ATTNSCOPE_SKIP_WITHOUT(dir);
    int opened = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() != ".gguf") {
            continue;
        }
        SCOPED_TRACE(entry.path().filename().string());
        const GgufFile f(entry.path());
        EXPECT_TRUE(f.stringAt("general.architecture").has_value());
        const auto tokens = f.stringArray("tokenizer.ggml.tokens");
        EXPECT_GT(tokens.size(), 30000u);
        const std::string_view model = *f.stringAt("tokenizer.ggml.model");
        EXPECT_TRUE(model == "llama" || model == "gpt2") << model;
        if (model == "llama") {
            EXPECT_EQ(f.numberArray("tokenizer.ggml.scores").size(), tokens.size());
        } else {
            EXPECT_GT(f.stringArray("tokenizer.ggml.merges").size(), 10000u);
        }
        EXPECT_EQ(f.numberArray("tokenizer.ggml.token_type").size(), tokens.size());
        EXPECT_TRUE(f.tensors().empty());
        ++opened;
    }
    EXPECT_GE(opened, 10);
}

}  // namespace
}  // namespace attnscope::io
