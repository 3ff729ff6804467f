#include "attnscope/forward/attention_what_if.h"

#include <charconv>
#include <cmath>
#include <sstream>

#include "attnscope/base/enum_names.h"
#include "attnscope/base/error.h"
#include "attnscope/base/trim.h"

namespace attnscope::forward {

namespace {

constexpr EnumName<QkNormChoice> kQkNames[] = {
    {QkNormChoice::Model, "model"}, {QkNormChoice::Off, "off"}, {QkNormChoice::Unit, "unit"}};

// 'text' (appended piece by piece: GCC 12 warns of a false overlap in "'" + std::string(...)).
std::string quoted(std::string_view text) {
    std::string out;
    out.reserve(text.size() + 2);
    out.push_back('\'');
    out.append(text);
    out.push_back('\'');
    return out;
}

[[noreturn]] void fail(std::string_view item, const std::string& why) {
    throw InvalidArgument("what-if " + quoted(item) + ": " + why);
}

// A positive normal float, the whole of `text` (subnormals would not read back from
// describe()'s six digits).
float positive(std::string_view text, std::string_view item) {
    float value = 0.0f;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() ||
        !std::isnormal(value) || value <= 0.0f) {
        fail(item, quoted(text) + " is not a positive number in float range");
    }
    return value;
}

QkNormChoice qkNormFrom(std::string_view value, std::string_view item) {
    for (const auto& n : kQkNames) {
        if (n.name == value) {
            return n.value;
        }
    }
    fail(item, "qk-norm is model, off or unit");
}

}  // namespace

std::string_view qkNormChoiceName(QkNormChoice choice) {
    return nameIn(kQkNames, choice, "?");
}

model::QkNorm effectiveQkNorm(const model::ModelSpec& spec, const AttentionWhatIf& w) {
    switch (w.qkNorm) {
        case QkNormChoice::Off:
            return model::QkNorm::None;
        case QkNormChoice::Unit:
            return model::QkNorm::PerHead;
        case QkNormChoice::Model:
            break;
    }
    return spec.qkNorm;
}

float effectiveSoftcap(const model::ModelSpec& spec, const AttentionWhatIf& w) {
    return w.softcap.value_or(spec.attnSoftcap);
}

void checkWhatIf(const AttentionWhatIf& w) {
    if (w.softcap && (!std::isfinite(*w.softcap) || *w.softcap < 0.0f)) {
        throw InvalidArgument("forward pass: soft-cap " + std::to_string(*w.softcap) +
                              " is not a finite number >= 0 (0 switches it off)");
    }
}

WhatIfSetting parseWhatIf(std::string_view text, int headDimK) {
    WhatIfSetting s;
    bool seen[3] = {false, false, false};
    std::size_t begin = 0;
    while (begin <= text.size()) {
        const std::size_t end = std::min(text.find(',', begin), text.size());
        const std::string_view item = trimmed(text.substr(begin, end - begin));
        begin = end + 1;
        const std::size_t eq = item.find('=');
        if (eq == std::string_view::npos) {
            fail(item, "expected KEY=VALUE with KEY qk-norm, softcap or scale");
        }
        const std::string_view key = trimmed(item.substr(0, eq));
        const std::string_view value = trimmed(item.substr(eq + 1));
        const int slot = key == "qk-norm" ? 0 : key == "softcap" ? 1 : key == "scale" ? 2 : -1;
        if (slot < 0) {
            fail(item, "unknown key " + quoted(key) + " (qk-norm, softcap or scale)");
        }
        if (seen[slot]) {
            fail(item, std::string(key) + " is given twice");
        }
        seen[slot] = true;
        if (slot == 0) {
            s.attention.qkNorm = qkNormFrom(value, item);
        } else if (slot == 1 && value != "model") {
            s.attention.softcap = value == "off" ? 0.0f : positive(value, item);
        } else if (slot == 2 && value == "inv-sqrt-dk") {
            s.scale = 1.0f / std::sqrt(static_cast<float>(headDimK));
        } else if (slot == 2 && value != "model") {
            s.scale = positive(value, item);
        }
    }
    return s;
}

std::string describe(const WhatIfSetting& s) {
    std::ostringstream out;
    const char* sep = "";
    if (s.attention.qkNorm != QkNormChoice::Model) {
        out << "qk-norm=" << qkNormChoiceName(s.attention.qkNorm);
        sep = ", ";
    }
    if (s.attention.softcap) {
        out << sep << "softcap=";
        if (*s.attention.softcap > 0.0f) {
            out << *s.attention.softcap;
        } else {
            out << "off";
        }
        sep = ", ";
    }
    if (s.scale) {
        out << sep << "scale=" << *s.scale;
    }
    const std::string text = out.str();
    return text.empty() ? "none" : text;
}

}  // namespace attnscope::forward
