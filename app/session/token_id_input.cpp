#include "session/token_id_input.h"

#include <QObject>

namespace attnscope::app {

namespace {

bool isSeparator(QChar c) {
    return c == QLatin1Char(',') || c.isSpace();
}

// Ten digits already pass any int32 id; more cannot be read without overflow and are outside
// every vocabulary anyway.
constexpr int kMaxDigits = 10;

}  // namespace

TokenIdList parseTokenIds(const QString& text, std::int64_t vocabSize) {
    TokenIdList out;
    const auto n = static_cast<int>(text.size());
    int i = 0;
    while (i < n) {
        if (isSeparator(text[i])) {
            ++i;
            continue;
        }
        const int start = i;
        while (i < n && !isSeparator(text[i])) {
            ++i;
        }
        const QString part = text.mid(start, i - start);
        bool digits = true;
        for (const QChar c : part) {
            digits = digits && c >= QLatin1Char('0') && c <= QLatin1Char('9');
        }
        out.errorStart = start;
        out.errorLength = i - start;
        if (!digits) {
            out.error = QObject::tr(
                            "“%1” is not a token id (whole numbers 0 … %2, separated "
                            "by commas or spaces)")
                            .arg(part)
                            .arg(vocabSize - 1);
            return out;
        }
        const std::int64_t id = part.size() > kMaxDigits ? -1 : part.toLongLong();
        if (id < 0 || id >= vocabSize) {
            out.error = QObject::tr("id %1 (token %2) is outside the vocabulary (0 … %3)")
                            .arg(part)
                            .arg(out.ids.size())
                            .arg(vocabSize - 1);
            return out;
        }
        out.ids.push_back(static_cast<std::int32_t>(id));
    }
    out.errorStart = -1;
    out.errorLength = 0;
    return out;
}

}  // namespace attnscope::app
