// Shared by the ablation tests: fixture models, a sentence, and bitwise comparison of results.
#pragma once

#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../support/fixture_model.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/model/model.h"

namespace attnscope::testing {

// 11 tokens every fixture vocabulary and position table holds.
inline forward::ForwardInput sentence() {
    return {{3, 17, 9, 4, 12, 8, 21, 5, 2, 30, 11}, {}};
}

inline forward::ForwardOptions withAblations(const std::string& list, forward::AblationKind kind) {
    forward::ForwardOptions o;
    if (!list.empty()) {
        o.interventions.ablations = forward::parseAblationList(list, kind);
    }
    return o;
}

template <class A, class B>
bool sameFloats(const A& a, const B& b, std::size_t from = 0) {
    return a.size() == b.size() &&
           std::memcmp(a.data() + from, b.data() + from,
                       sizeof(float) * (static_cast<std::size_t>(a.size()) - from)) == 0;
}

// Every recorded float, bit for bit; `what` names the comparison in failures.
inline void expectSameResult(const forward::ForwardResult& a, const forward::ForwardResult& b,
                             const std::string& what) {
    EXPECT_TRUE(sameFloats(a.probs, b.probs)) << what << ": probs";
    EXPECT_TRUE(sameFloats(a.logits, b.logits)) << what << ": logits";
    EXPECT_TRUE(sameFloats(a.context, b.context)) << what << ": context";
    EXPECT_TRUE(sameFloats(a.entropy, b.entropy)) << what << ": entropy";
    EXPECT_TRUE(sameFloats(a.rowMax, b.rowMax)) << what << ": rowMax";
    EXPECT_TRUE(sameFloats(a.maxAbsLogit, b.maxAbsLogit)) << what << ": maxAbsLogit";
    EXPECT_TRUE(sameFloats(a.previews, b.previews)) << what << ": previews";
    EXPECT_TRUE(sameFloats(a.scales, b.scales)) << what << ": scales";
    EXPECT_TRUE(sameFloats(a.hidden, b.hidden)) << what << ": hidden";
    EXPECT_EQ(a.ablated, b.ablated) << what;
    EXPECT_EQ(a.warnings, b.warnings) << what;
    EXPECT_EQ(a.fullyMaskedRows, b.fullyMaskedRows) << what;
    ASSERT_EQ(a.layerInputs.size(), b.layerInputs.size()) << what;
    for (std::size_t i = 0; i < a.layerInputs.size(); ++i) {
        EXPECT_TRUE(sameFloats(a.layerInputs[i], b.layerInputs[i])) << what << ": input " << i;
    }
    ASSERT_EQ(a.layerStates.size(), b.layerStates.size()) << what;
    for (std::size_t i = 0; i < a.layerStates.size(); ++i) {
        EXPECT_TRUE(sameFloats(a.layerStates[i], b.layerStates[i])) << what << ": state " << i;
    }
}

}  // namespace attnscope::testing
