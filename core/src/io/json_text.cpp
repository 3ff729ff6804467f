#include "attnscope/io/json_text.h"

#include <optional>

#include "attnscope/base/error.h"
#include "attnscope/io/input_file.h"

namespace attnscope::io {

using nlohmann::json;

namespace {

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

// Where the nesting first exceeds kMaxJsonDepth, or text.size() if it never does: one pass over
// the bytes, skipping strings. nlohmann's parser callback could count the depth too, but it makes
// the parser re-scan the parent object after every child value (json_sax_dom_callback_parser's
// discarded-value check), which is quadratic: a safetensors header of 300,000 tensors took hours
// (issue 30). Up to the first syntax error this agrees with the parser's own depth, since both
// see the same brackets outside strings.
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

// A SAX handler that builds nothing and only decides which comes first in a too-deep text: a
// syntax error (rethrown as the parser's own exception, so parseJson reports it as usual) or
// the nesting limit (parsing stops there). Linear, and its memory does not grow with the depth.
struct DepthCheck {
    int depth = 0;
    bool tooDeep = false;

    bool null() { return true; }

    bool boolean(bool) { return true; }

    bool number_integer(json::number_integer_t) { return true; }

    bool number_unsigned(json::number_unsigned_t) { return true; }

    bool number_float(json::number_float_t, const json::string_t&) { return true; }

    bool string(json::string_t&) { return true; }

    bool binary(json::binary_t&) { return true; }

    bool key(json::string_t&) { return true; }

    bool start_object(std::size_t) { return enter(); }

    bool end_object() { return leave(); }

    bool start_array(std::size_t) { return enter(); }

    bool end_array() { return leave(); }

    template <class Exception>
    bool parse_error(std::size_t, const std::string&, const Exception& e) {
        throw e;
    }

private:
    bool enter() {
        tooDeep = ++depth > kMaxJsonDepth;
        return !tooDeep;
    }

    bool leave() {
        --depth;
        return true;
    }
};

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
    try {
        const std::size_t tooDeepAt = firstTooDeep(text);
        if (tooDeepAt < text.size()) {
            DepthCheck check;
            json::sax_parse(text, &check);  // throws the parser's error if one comes first
            if (check.tooDeep) {
                throw FormatError(file + ": " + placeOf(text, tooDeepAt) +
                                  ": JSON nested more than " + std::to_string(kMaxJsonDepth) +
                                  " levels deep");
            }
        }
        return json::parse(text);
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
