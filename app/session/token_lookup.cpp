#include "session/token_lookup.h"

#include <QObject>
#include <QStringList>

#include "attnscope/analysis/sentence_analysis.h"

namespace attnscope::app {

namespace {

TokenLookup byId(const model::Model& model, const QString& digits) {
    bool ok = false;
    const qlonglong id = digits.toLongLong(&ok);
    if (!ok || id < 0 || id >= model.spec.vocabSize) {
        return {std::nullopt, QObject::tr("#%1 is not a token id: the vocabulary has ids 0 to %2.")
                                  .arg(digits)
                                  .arg(model.spec.vocabSize - 1)};
    }
    return {static_cast<std::int32_t>(id), {}};
}

QString shown(const std::string& piece) {
    return QStringLiteral("“%1”").arg(QString::fromStdString(analysis::tokenLabel(piece)));
}

}  // namespace

TokenLookup lookUpToken(const model::Model& model, const QString& text) {
    if (text.isEmpty()) {
        return {std::nullopt, QObject::tr("Type a token, a piece of the vocabulary or #id.")};
    }
    if (text.size() > 1 && text.front() == QLatin1Char('#')) {
        return byId(model, text.mid(1));
    }
    const std::string utf8 = text.toStdString();
    if (const tokenize::TokenVocabulary* vocab = model.vocabulary()) {
        if (const auto id = vocab->tokenToId(utf8)) {
            return {*id, {}};  // the piece itself, as `attnscope-cli tokenize` prints it
        }
    }
    const tokenize::Tokenizer* tokenizer = model.targetTextTokenizer();
    if (!tokenizer) {
        return {std::nullopt, QObject::tr("“%1” is not a piece of the vocabulary, and the model "
                                          "has no tokenizer: type #id.")
                                  .arg(text)};
    }
    const std::vector<tokenize::Token> tokens = tokenizer->encode(utf8, false);
    if (tokens.size() == 1) {
        return {tokens.front().id, {}};
    }
    if (tokens.empty()) {
        return {std::nullopt, QObject::tr("The tokenizer makes no token of “%1”.").arg(text)};
    }
    QStringList pieces;
    for (const tokenize::Token& t : tokens) {
        pieces << shown(t.text);
    }
    return {std::nullopt, QObject::tr("“%1” is %2 tokens (%3): type one of them, or #id.")
                              .arg(text)
                              .arg(tokens.size())
                              .arg(pieces.join(QStringLiteral(" ")))};
}

}  // namespace attnscope::app
