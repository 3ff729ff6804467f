// The safetensors reader on valid files and on every way a header can lie about the data.
#include "attnscope/io/safetensors.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "../support/expect_error.h"
#include "../support/test_files.h"
#include "attnscope/base/error.h"
#include "attnscope/io/checkpoint.h"

namespace attnscope::io {
namespace {

using testing::RawTensor;
using testing::safetensorsBytes;
using testing::ScratchDir;

using testing::expectError;

class SafetensorsTest : public ::testing::Test {
protected:
    std::filesystem::path write(const std::string& bytes) {
        const auto p = m_dir.path() / "model.safetensors";
        testing::writeFile(p, bytes);
        return p;
    }

    ScratchDir m_dir;
};

TEST_F(SafetensorsTest, ReadsAndWidensF32F16BF16) {
    // F16 0x3C00 = 1.0, 0xC000 = -2.0; BF16 0x3F80 = 1.0, 0xC040 = -3.0 (little-endian bytes).
    const auto p = write(safetensorsBytes({
        {"a", "F32", {2}, testing::floatBytes({0.5f, -1.25f})},
        {"b", "F16", {2}, std::string("\x00\x3C\x00\xC0", 4)},
        {"c", "BF16", {1, 2}, std::string("\x80\x3F\x40\xC0", 4)},
    }));
    const SafetensorsFile f(p);
    ASSERT_EQ(f.tensors().size(), 3u);
    std::vector<float> out(2);
    widenToFloat(*f.find("a"), out, "x");
    EXPECT_EQ(out, (std::vector<float>{0.5f, -1.25f}));
    widenToFloat(*f.find("b"), out, "x");
    EXPECT_EQ(out, (std::vector<float>{1.0f, -2.0f}));
    widenToFloat(*f.find("c"), out, "x");
    EXPECT_EQ(out, (std::vector<float>{1.0f, -3.0f}));
    EXPECT_EQ(f.find("c")->shape, (std::vector<std::int64_t>{1, 2}));
    EXPECT_EQ(f.find("missing"), nullptr);
}

// Resident kilobytes of the mapping that holds `address`, from /proc/self/smaps; -1 if absent.
long residentKiB(const void* address) {
    std::ifstream smaps("/proc/self/smaps");
    const auto a = reinterpret_cast<std::uintptr_t>(address);
    bool inside = false;
    for (std::string line; std::getline(smaps, line);) {
        unsigned long begin = 0;
        unsigned long end = 0;
        if (std::sscanf(line.c_str(), "%lx-%lx ", &begin, &end) == 2 &&
            line.find(':') > line.find(' ')) {
            inside = a >= begin && a < end;
        } else if (inside && line.starts_with("Rss:")) {
            return std::stol(line.substr(4));
        }
    }
    return -1;
}

// Issue 6: the loader drops each tensor's mapped pages once copied, so a load does not keep the
// whole file resident. The bytes read afterwards are the same: the pages come back from the file.
TEST_F(SafetensorsTest, DroppedPagesLeaveTheResidentSetAndReadTheSameAgain) {
    std::vector<float> values(256 * 1024);  // 1 MiB
    for (std::size_t i = 0; i < values.size(); ++i) {
        values[i] = static_cast<float>(i) * 0.25f;
    }
    const auto p =
        write(safetensorsBytes({{"w", "F32", {256, 1024}, testing::floatBytes(values)}}));
    const SafetensorsFile f(p);
    const TensorInfo& w = *f.find("w");
    std::vector<float> out(values.size());
    widenToFloat(w, out, "x");
    ASSERT_EQ(out, values);
    const long before = residentKiB(w.bytes.data());
    f.dropPages(w);
    const long after = residentKiB(w.bytes.data());
    if (before >= 0) {
        EXPECT_GE(before, 1000) << "the tensor was read through the mapping";
        EXPECT_LE(after, 8) << "only the two edge pages it shares with the header or file end";
    }
    std::fill(out.begin(), out.end(), 0.0f);
    widenToFloat(w, out, "x");
    EXPECT_EQ(out, values);
}

TEST_F(SafetensorsTest, TooShortFile) {
    const auto p = write("abc");
    expectError<FormatError>([&] { SafetensorsFile f(p); }, {p.string(), "too short"});
}

TEST_F(SafetensorsTest, HeaderLengthBeyondFile) {
    std::string bytes = safetensorsBytes({{"a", "F32", {1}, testing::floatBytes({1})}});
    bytes[0] = '\x7f';
    bytes[5] = '\x01';
    const auto p = write(bytes);
    expectError<FormatError>([&] { SafetensorsFile f(p); }, {p.string(), "exceeds the file size"});
}

TEST_F(SafetensorsTest, HeaderNotJson) {
    const auto p = write(safetensorsBytes("{\"a\": [", ""));
    expectError<FormatError>(
        [&] { SafetensorsFile f(p); },
        {p.string(), "header (bytes 8..15): line 1, column 8", "not valid JSON"});
}

TEST_F(SafetensorsTest, OffsetsPastTheEndOfTheFile) {
    // Header claims 8 bytes, the data area holds 4: the file was truncated.
    const auto p = write(safetensorsBytes(
        R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})", "abcd"));
    expectError<FormatError>([&] { SafetensorsFile f(p); }, {p.string(), "w", "outside"});
}

TEST_F(SafetensorsTest, OffsetsDisagreeWithShape) {
    const auto p = write(safetensorsBytes(
        R"({"w": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}})", "abcdefgh"));
    expectError<FormatError>([&] { SafetensorsFile f(p); }, {"w", "hold 8 bytes", "need 12"});
}

TEST_F(SafetensorsTest, UnknownDtype) {
    const auto p = write(safetensorsBytes(
        R"({"w": {"dtype": "F8_E9", "shape": [1], "data_offsets": [0, 1]}})", "a"));
    expectError<FormatError>([&] { SafetensorsFile f(p); },
                             {p.string(), "w", "unknown dtype 'F8_E9'"});
}

TEST_F(SafetensorsTest, ShapeOverflow) {
    const auto p = write(safetensorsBytes(
        R"({"w": {"dtype": "F32", "shape": [4611686018427387904, 16], "data_offsets": [0, 4]}})",
        "abcd"));
    expectError<FormatError>([&] { SafetensorsFile f(p); }, {"w", "overflow"});
}

TEST_F(SafetensorsTest, NegativeShape) {
    const auto p = write(safetensorsBytes(
        R"({"w": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}})", "abcd"));
    expectError<FormatError>([&] { SafetensorsFile f(p); }, {"w.shape", "non-negative"});
}

TEST_F(SafetensorsTest, OverlappingTensors) {
    const auto p = write(safetensorsBytes(
        R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
            "b": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})",
        "abcdefgh"));
    expectError<FormatError>([&] { SafetensorsFile f(p); }, {"overlaps"});
}

TEST_F(SafetensorsTest, EndBeforeBegin) {
    const auto p = write(safetensorsBytes(
        R"({"a": {"dtype": "U8", "shape": [0], "data_offsets": [4, 0]}})", "abcd"));
    expectError<FormatError>([&] { SafetensorsFile f(p); }, {"a"});
}

TEST_F(SafetensorsTest, IntegerTensorsAreNotWeights) {
    const auto p = write(safetensorsBytes({{"ids", "I64", {1}, std::string(8, '\0')}}));
    const SafetensorsFile f(p);
    std::vector<float> out(1);
    expectError<UnsupportedModel>([&] { widenToFloat(*f.find("ids"), out, p.string()); },
                                  {"ids", "I64", "not a weight type"});
}

TEST_F(SafetensorsTest, MissingFile) {
    expectError<FormatError>([&] { SafetensorsFile f(m_dir.path() / "nope.safetensors"); },
                             {"nope.safetensors", "cannot open"});
}

TEST_F(SafetensorsTest, CheckpointWithoutWeights) {
    expectError<FormatError>([&] { Checkpoint c(m_dir.path()); }, {"no weights"});
}

TEST_F(SafetensorsTest, ShardedIndexChecksEveryEntry) {
    testing::writeFile(m_dir.path() / "part-1.safetensors",
                       safetensorsBytes({{"a", "F32", {1}, testing::floatBytes({2})}}));
    const auto index = m_dir.path() / "model.safetensors.index.json";
    testing::writeFile(index, R"({"weight_map": {"a": "part-1.safetensors"}})");
    Checkpoint ok(m_dir.path());
    EXPECT_NE(ok.find("a").info, nullptr);

    testing::writeFile(index, R"({"weight_map": {"b": "part-1.safetensors"}})");
    expectError<FormatError>([&] { Checkpoint c(m_dir.path()); },
                             {"weight_map.b", "does not hold it"});
    testing::writeFile(index, R"({"weight_map": {"a": "part-2.safetensors"}})");
    expectError<FormatError>([&] { Checkpoint c(m_dir.path()); }, {"part-2.safetensors"});
    testing::writeFile(index, R"({"weight_map": {"a": "../part-1.safetensors"}})");
    expectError<FormatError>([&] { Checkpoint c(m_dir.path()); }, {"not a plain file name"});
    // Issue 15: the index is read through io/json_access.h like every other JSON file.
    testing::writeFile(index, R"({"weight_map": [1, 2]})");
    expectError<FormatError>(
        [&] { Checkpoint c(m_dir.path()); },
        {index.string() + ": $.weight_map: expected an object, found an array of 2 values"});
    testing::writeFile(index, R"({"weight_map": {"a": 7}})");
    expectError<FormatError>([&] { Checkpoint c(m_dir.path()); },
                             {index.string() + ": $.weight_map.a: expected a string, found 7"});
    testing::writeFile(index, R"({"weight_map": )");
    expectError<FormatError>([&] { Checkpoint c(m_dir.path()); }, {index.string(), "line 1"});
}

}  // namespace
}  // namespace attnscope::io
