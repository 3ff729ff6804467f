// The one JSON parser entry point for every file AttnScope reads (config.json, tokenizer.json,
// vocab.json, shard indexes, safetensors headers), so each gets the same limits and messages.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace attnscope::io {

// Real files nest at most about ten levels; the limit keeps a hostile file from exhausting the
// stack in code that walks the tree (printing, copying, the tokenizer pipeline's Sequences).
inline constexpr int kMaxJsonDepth = 128;
// The largest JSON file read: tokenizer.json of a big multilingual model is about 30 MB.
inline constexpr std::uint64_t kMaxJsonFileBytes = 1ull << 30;

// Parses `text`, the contents of `file`. Throws FormatError "<file>: line L, column C: <why>"
// for malformed JSON, nesting deeper than kMaxJsonDepth or a number outside double's range.
nlohmann::json parseJson(std::string_view text, const std::string& file);

// Reads (io/input_file.h rules) and parses a whole file.
nlohmann::json readJsonFile(const std::filesystem::path& path);

// A value as it may appear in an error message: scalars as JSON text cut to about 60
// characters, arrays and objects by their size ("an array of 3 values").
std::string quoteJson(const nlohmann::json& value);

}  // namespace attnscope::io
