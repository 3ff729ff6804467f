#include "attnscope/io/json_text.h"

#include <optional>

#include "attnscope/base/error.h"
#include "attnscope/io/input_file.h"

namespace attnscope::io {

using nlohmann::json;

namespace {

struct TooDeep {};

// "line L, column C" of byte offset `pos` (0-based) in `text`.
std::string placeOf(std::string_view text, std::size_t pos) {
    pos = std::min(pos, text.size());
    std::size_t line = 1;
    std::size_t col = 1;
    for (std::size_t i = 0; i < pos; ++i) {
        if (text[i] == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

// Where the nesting first exceeds kMaxJsonDepth. The parser's callback knows the depth but not
// the position, so the text is scanned again, only once the limit has been hit.
std::size_t firstTooDeep(std::string_view text) {
    int depth = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\') {
                ++i;
            } else if (c == '"') {
                inString = false;
            }
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > kMaxJsonDepth) {
                return i;
            }
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return text.size();
}

// Where the number token `token` first stands alone in the text, for "number overflow" errors,
// which nlohmann reports without a position.
std::optional<std::size_t> findNumber(std::string_view text, std::string_view token) {
    const auto isNumberChar = [](char c) {
        return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
    };
    for (std::size_t at = text.find(token); !token.empty() && at != std::string_view::npos;
         at = text.find(token, at + 1)) {
        const std::size_t end = at + token.size();
        if ((at == 0 || !isNumberChar(text[at - 1])) &&
            (end == text.size() || !isNumberChar(text[end]))) {
            return at;
        }
    }
    return std::nullopt;
}

// nlohmann's what() reads "[json.exception.parse_error.101] parse error at line 1, column 5:
// syntax error ..."; keep the part after the last "]" and the position prefix.
std::string reasonOf(const json::exception& e) {
    std::string what = e.what();
    if (const auto close = what.find("] "); close != std::string::npos) {
        what = what.substr(close + 2);
    }
    if (const auto colon = what.find(": ");
        what.starts_with("parse error") && colon != std::string::npos) {
        what = what.substr(colon + 2);
    }
    if (what.size() > 200) {
        what = what.substr(0, 200) + "…";
    }
    return what;
}

}  // namespace

json parseJson(std::string_view text, const std::string& file) {
    const json::parser_callback_t limitDepth = [](int depth, json::parse_event_t, json&) {
        if (depth > kMaxJsonDepth) {
            throw TooDeep{};
        }
        return true;
    };
    try {
        return json::parse(text, limitDepth);
    } catch (const TooDeep&) {
        throw FormatError(file + ": " + placeOf(text, firstTooDeep(text)) +
                          ": JSON nested more than " + std::to_string(kMaxJsonDepth) +
                          " levels deep");
    } catch (const json::parse_error& e) {
        throw FormatError(file + ": " + placeOf(text, e.byte > 0 ? e.byte - 1 : 0) +
                          ": not valid JSON: " + reasonOf(e));
    } catch (const json::out_of_range& e) {
        // Only a number outside double's range (1e400) gets here while parsing.
        const std::string what = e.what();
        const auto open = what.find('\'');
        const auto close = what.rfind('\'');
        const std::string token = open != std::string::npos && close > open
                                      ? what.substr(open + 1, close - open - 1)
                                      : "";
        const std::optional<std::size_t> at = findNumber(text, token);
        throw FormatError(file + ": " + (at ? placeOf(text, *at) + ": " : std::string()) +
                          "number " + (token.size() > 40 ? token.substr(0, 40) + "…" : token) +
                          " is outside the range of a double-precision number");
    } catch (const json::exception& e) {
        throw FormatError(file + ": not valid JSON: " + reasonOf(e));
    }
}

json readJsonFile(const std::filesystem::path& path) {
    return parseJson(readWholeFile(path, kMaxJsonFileBytes, "a JSON file"), path.string());
}

std::string quoteJson(const json& value) {
    constexpr std::size_t kMaxChars = 60;
    if (value.is_array()) {
        return "an array of " + std::to_string(value.size()) + " values";
    }
    if (value.is_object()) {
        return "an object of " + std::to_string(value.size()) + " members";
    }
    std::string text = value.is_string() && value.get_ref<const std::string&>().size() > kMaxChars
                           ? json(value.get_ref<const std::string&>().substr(0, kMaxChars))
                                 .dump(-1, ' ', false, json::error_handler_t::replace)
                           : value.dump(-1, ' ', false, json::error_handler_t::replace);
    if (text.size() > kMaxChars + 2) {
        text = text.substr(0, kMaxChars) + "…";
    } else if (value.is_string() && value.get_ref<const std::string&>().size() > kMaxChars) {
        text.insert(text.size() - 1, "…");
    }
    return text;
}

}  // namespace attnscope::io
