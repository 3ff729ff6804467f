// The what-if syntax the CLI takes (attention_what_if.h): each key and value, and the named
// mistakes with their messages.
#include <cmath>

#include <gtest/gtest.h>

#include "../support/expect_error.h"
#include "attnscope/base/error.h"
#include "attnscope/forward/attention_what_if.h"

namespace attnscope::forward {
namespace {

TEST(WhatIf, ParsesEveryKey) {
    const WhatIfSetting s = parseWhatIf("qk-norm=unit, softcap=2.5,scale=inv-sqrt-dk", 16);
    EXPECT_EQ(s.attention.qkNorm, QkNormChoice::Unit);
    EXPECT_EQ(s.attention.softcap, 2.5f);
    EXPECT_EQ(s.scale, 0.25f);
    EXPECT_EQ(describe(s), "qk-norm=unit, softcap=2.5, scale=0.25");

    const WhatIfSetting off = parseWhatIf("softcap=off,qk-norm=off", 8);
    EXPECT_EQ(off.attention.qkNorm, QkNormChoice::Off);
    EXPECT_EQ(off.attention.softcap, 0.0f);
    EXPECT_FALSE(off.scale);
    EXPECT_EQ(describe(off), "qk-norm=off, softcap=off");

    const WhatIfSetting model = parseWhatIf("qk-norm=model,softcap=model,scale=model", 8);
    EXPECT_TRUE(model.attention.isModel());
    EXPECT_FALSE(model.scale);
    EXPECT_EQ(describe(model), "none");
    EXPECT_EQ(parseWhatIf("scale=0.125", 8).scale, 0.125f);
}

TEST(WhatIf, NamesEachMistake) {
    using testing::expectError;

    const struct {
        const char* text;
        const char* message;
    } cases[] = {
        {"", "what-if '': expected KEY=VALUE with KEY qk-norm, softcap or scale"},
        {"qk-norm", "what-if 'qk-norm': expected KEY=VALUE"},
        {"qknorm=off", "what-if 'qknorm=off': unknown key 'qknorm' (qk-norm, softcap or scale)"},
        {"qk-norm=none", "what-if 'qk-norm=none': qk-norm is model, off or unit"},
        {"softcap=-2", "what-if 'softcap=-2': '-2' is not a positive number"},
        {"softcap=0", "what-if 'softcap=0': '0' is not a positive number"},
        {"scale=1e60", "what-if 'scale=1e60': '1e60' is not a positive number"},
        {"scale=nan", "what-if 'scale=nan': 'nan' is not a positive number"},
        {"scale=0.5x", "what-if 'scale=0.5x': '0.5x' is not a positive number"},
        {"softcap=2,softcap=3", "what-if 'softcap=3': softcap is given twice"},
        {"softcap=2,", "what-if '': expected KEY=VALUE"},
    };

    for (const auto& c : cases) {
        expectError<InvalidArgument>([&] { parseWhatIf(c.text, 8); }, {c.message});
    }
}

TEST(WhatIf, ChecksTheCapItself) {
    AttentionWhatIf w;
    w.softcap = -1.0f;
    EXPECT_THROW(checkWhatIf(w), InvalidArgument);
    w.softcap = std::nanf("");
    EXPECT_THROW(checkWhatIf(w), InvalidArgument);
    w.softcap = 0.0f;
    EXPECT_NO_THROW(checkWhatIf(w));
}

TEST(WhatIf, EffectiveSettings) {
    model::ModelSpec spec;
    spec.qkNorm = model::QkNorm::Whole;
    spec.attnSoftcap = 50.0f;
    AttentionWhatIf w;
    EXPECT_EQ(effectiveQkNorm(spec, w), model::QkNorm::Whole);
    EXPECT_EQ(effectiveSoftcap(spec, w), 50.0f);
    w.qkNorm = QkNormChoice::Unit;  // per head, replacing the model's whole-projection norm
    w.softcap = 0.0f;
    EXPECT_EQ(effectiveQkNorm(spec, w), model::QkNorm::PerHead);
    EXPECT_EQ(effectiveSoftcap(spec, w), 0.0f);
    w.qkNorm = QkNormChoice::Off;
    EXPECT_EQ(effectiveQkNorm(spec, w), model::QkNorm::None);
}

}  // namespace
}  // namespace attnscope::forward
