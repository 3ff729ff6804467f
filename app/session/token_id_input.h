// The sentence field of a model without tokenizer files takes token ids instead of text
// (issue 30), as `attnscope-cli --token-ids` does: whole numbers separated by commas and/or
// spaces ("101, 7592 102"). Each is checked against the model's vocabulary size as it is typed,
// so the field can say which part is wrong before anything runs; the forward pass checks the
// ids again (forward::checkInput) and labels them (analysis::analyzeIds).
#pragma once

#include <cstdint>
#include <vector>

#include <QString>

namespace attnscope::app {

struct TokenIdList {
    std::vector<std::int32_t> ids;
    // Empty when every part is an id of the vocabulary; else one line saying which part is wrong
    // and why, and where it is in the text (characters), for the field to mark it.
    QString error;
    int errorStart = -1;
    int errorLength = 0;

    bool ok() const { return error.isEmpty(); }
};

// Parses `text` as token ids for a vocabulary of `vocabSize` ids (0 … vocabSize − 1). Empty parts
// (", ," or trailing separators) are skipped; any other part that is not a decimal number in the
// vocabulary is an error, the first one reported. Linear in the text.
TokenIdList parseTokenIds(const QString& text, std::int64_t vocabSize);

}  // namespace attnscope::app
