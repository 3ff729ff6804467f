// A token the user types to pick it as the target or distractor (AnalysisSession::pickTarget),
// when it is not among the five predictions listed: "#1234" (an id), a piece of the vocabulary as
// `attnscope-cli tokenize` prints it ("ĠMary"), or text the model's tokenizer makes one token of
// (" Mary"). Anything else is refused with what the tokenizer made of it.
#pragma once

#include <cstdint>
#include <optional>

#include <QString>

#include "attnscope/model/model.h"

namespace attnscope::app {

struct TokenLookup {
    std::optional<std::int32_t> id;
    QString error;  // why there is no id: one sentence
};

TokenLookup lookUpToken(const model::Model& model, const QString& text);

}  // namespace attnscope::app
