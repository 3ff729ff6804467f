// Reads the normalizer and pre_tokenizer sections of tokenizer.json into pipeline steps. Parts
// AttnScope does not implement are UnsupportedModel, naming their JSON path.
#include "attnscope/base/error.h"
#include "attnscope/tokenize/precompiled_charsmap.h"
#include "loader_internal.h"

namespace attnscope::tokenize::detail {
namespace {

std::u32string chars(const Json& value, const JsonAt& at) {
    const std::string text = asString(value, at);
    if (findInvalidUtf8(text)) {
        failAt(at, "invalid UTF-8");
    }
    return decodeUtf8(text, at.path).chars;
}

// A {"String": "..."} or {"Regex": "..."} pattern; true for a regex.
std::pair<std::string, bool> parsePattern(const Json& pattern, const JsonAt& at) {
    expectObject(pattern, at);
    if (const Json* s = optionalMember(pattern, "String")) {
        return {asString(*s, at["String"]), false};
    }
    if (const Json* r = optionalMember(pattern, "Regex")) {
        return {asString(*r, at["Regex"]), true};
    }
    failAt(at, "expected {\"String\": ...} or {\"Regex\": ...}");
}

// A normalizer or pre-tokenizer section: one step, which `parseStep(object, at, type)` reads,
// or a "Sequence" whose `key` list holds steps and Sequences, flattened into `out` in order.
template <class Step>
void parseSteps(const Json& j, const JsonAt& at, const char* key, std::vector<Step>& out,
                Step (*parseStep)(const Json&, const JsonAt&, const std::string&)) {
    const std::string type = typeOf(j, at);
    if (type != "Sequence") {
        out.push_back(parseStep(j, at, type));
        return;
    }
    parseSequence(j, at, key, out,
                  [&](const Json& item, const JsonAt& itemAt, std::vector<Step>& steps) {
                      parseSteps(item, itemAt, key, steps, parseStep);
                  });
}

NormalizerStep parseNormalizer(const Json& n, const JsonAt& at, const std::string& type) {
    NormalizerStep step;
    if (type == "BertNormalizer") {
        step.kind = NormalizerKind::Bert;
        step.bert.cleanText = optionalBool(n, at, "clean_text").value_or(true);
        step.bert.handleChineseChars = optionalBool(n, at, "handle_chinese_chars").value_or(true);
        step.bert.stripAccents = optionalBool(n, at, "strip_accents");
        step.bert.lowercase = optionalBool(n, at, "lowercase").value_or(true);
    } else if (type == "Prepend") {
        step.kind = NormalizerKind::Prepend;
        step.text = chars(member(n, at, "prepend"), at["prepend"]);
    } else if (type == "Replace") {
        step.kind = NormalizerKind::Replace;
        const auto [pattern, isRegex] = parsePattern(member(n, at, "pattern"), at["pattern"]);
        const JsonAt patternAt = at["pattern"][isRegex ? "Regex" : "String"];
        if (isRegex) {
            step.regex = std::make_shared<const RegexSplitter>(
                pattern, false, patternAt.file + ": " + patternAt.path);
        } else {
            step.text = chars(Json(pattern), patternAt);
            if (step.text.empty()) {
                failAt(patternAt, "the pattern is empty");
            }
        }
        step.content = chars(member(n, at, "content"), at["content"]);
    } else if (type == "NFC" || type == "NFD" || type == "NFKD") {
        step.kind = type == "NFC" ? NormalizerKind::Nfc
                                  : (type == "NFD" ? NormalizerKind::Nfd : NormalizerKind::Nfkd);
    } else if (type == "Lowercase") {
        step.kind = NormalizerKind::Lowercase;
    } else if (type == "StripAccents") {
        step.kind = NormalizerKind::StripAccents;
    } else if (type == "Strip") {
        step.kind = NormalizerKind::Strip;
        step.stripLeft = asBool(member(n, at, "strip_left"), at["strip_left"]);
        step.stripRight = asBool(member(n, at, "strip_right"), at["strip_right"]);
    } else if (type == "Precompiled") {
        step.kind = NormalizerKind::Precompiled;
        const JsonAt mapAt = at["precompiled_charsmap"];
        step.charsmap = std::make_shared<const PrecompiledCharsmap>(
            PrecompiledCharsmap::fromBase64(asString(member(n, at, "precompiled_charsmap"), mapAt),
                                            mapAt.file + ": " + mapAt.path));
    } else {
        unsupported(at["type"], "normalizer \"" + type + "\" is not supported");
    }
    return step;
}

MetaspaceOptions parseMetaspace(const Json& p, const JsonAt& at) {
    MetaspaceOptions o;
    const std::u32string replacement = chars(member(p, at, "replacement"), at["replacement"]);
    if (replacement.size() != 1) {
        unsupported(at["replacement"], "a replacement of other than one character");
    }
    o.replacement = replacement.front();
    o.split = optionalBool(p, at, "split").value_or(true);
    if (const auto scheme = optionalString(p, at, "prepend_scheme")) {
        if (*scheme == "always") {
            o.prependScheme = PrependScheme::Always;
        } else if (*scheme == "first") {
            o.prependScheme = PrependScheme::First;
        } else if (*scheme == "never") {
            o.prependScheme = PrependScheme::Never;
        } else {
            failAt(at["prepend_scheme"],
                   "expected \"always\", \"first\" or \"never\", found \"" + *scheme + "\"");
        }
    } else {  // files written before prepend_scheme existed
        const bool prefix = optionalBool(p, at, "add_prefix_space").value_or(true);
        o.prependScheme = prefix ? PrependScheme::Always : PrependScheme::Never;
    }
    return o;
}

SplitBehavior parseBehavior(const Json& value, const JsonAt& at) {
    const std::string name = asString(value, at);
    static const std::vector<std::pair<std::string, SplitBehavior>> kNames = {
        {"Removed", SplitBehavior::Removed},
        {"Isolated", SplitBehavior::Isolated},
        {"MergedWithPrevious", SplitBehavior::MergedWithPrevious},
        {"MergedWithNext", SplitBehavior::MergedWithNext},
        {"Contiguous", SplitBehavior::Contiguous},
    };
    for (const auto& [key, behavior] : kNames) {
        if (key == name) {
            return behavior;
        }
    }
    unsupported(at, "split behavior \"" + name + "\" is not supported");
}

PreTokenizerStep parsePreTokenizer(const Json& p, const JsonAt& at, const std::string& type) {
    PreTokenizerStep step;
    if (type == "BertPreTokenizer") {
        step.kind = PreTokenizerKind::Bert;
    } else if (type == "ByteLevel") {
        step.kind = PreTokenizerKind::ByteLevel;
        step.byteLevel.addPrefixSpace = optionalBool(p, at, "add_prefix_space").value_or(true);
        if (optionalBool(p, at, "use_regex").value_or(true)) {
            step.pattern = std::make_shared<const RegexSplitter>();
        }
    } else if (type == "Metaspace") {
        step.kind = PreTokenizerKind::Metaspace;
        step.metaspace = parseMetaspace(p, at);
    } else if (type == "WhitespaceSplit") {
        // HF splits on char::is_whitespace and drops it: a Split on White_Space runs, Removed.
        step.kind = PreTokenizerKind::Split;
        step.pattern =
            std::make_shared<const RegexSplitter>("\\s+", false, at.file + ": " + at.path);
        step.behavior = SplitBehavior::Removed;
    } else if (type == "Split") {
        step.kind = PreTokenizerKind::Split;
        const auto [pattern, isRegex] = parsePattern(member(p, at, "pattern"), at["pattern"]);
        const JsonAt patternAt = at["pattern"][isRegex ? "Regex" : "String"];
        step.pattern = std::make_shared<const RegexSplitter>(
            pattern, !isRegex, patternAt.file + ": " + patternAt.path);
        step.behavior = parseBehavior(member(p, at, "behavior"), at["behavior"]);
        step.invert = optionalBool(p, at, "invert").value_or(false);
    } else {
        unsupported(at["type"], "pre-tokenizer \"" + type + "\" is not supported");
    }
    return step;
}

}  // namespace

std::vector<NormalizerStep> parseNormalizers(const Json& normalizer, const JsonAt& at) {
    std::vector<NormalizerStep> out;
    parseSteps(normalizer, at, "normalizers", out, parseNormalizer);
    return out;
}

std::vector<PreTokenizerStep> parsePreTokenizers(const Json& preTokenizer, const JsonAt& at) {
    std::vector<PreTokenizerStep> out;
    parseSteps(preTokenizer, at, "pretokenizers", out, parsePreTokenizer);
    return out;
}

}  // namespace attnscope::tokenize::detail
