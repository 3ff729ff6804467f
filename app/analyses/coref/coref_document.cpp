#include "analyses/coref/coref_document.h"

#include <exception>

#include <QObject>
#include <QStringList>

#include "session/analysis_session.h"

namespace attnscope::app {

namespace {

constexpr int kTitleWords = 6;

}  // namespace

CorefScores makeCorefScores(std::shared_ptr<const analysis::CorefCorpus> corpus,
                            std::shared_ptr<const model::Model> model,
                            const analysis::CorefScoreOptions& options,
                            analysis::CorefWindows windows, analysis::CorefAccumulator counts) {
    CorefScores scores;
    scores.limit = analysis::windowLimit(*model, options);
    scores.corpus = std::move(corpus);
    scores.model = std::move(model);
    scores.options = options;
    scores.windows = std::move(windows);
    scores.counts = std::move(counts);
    scores.windowTexts.reserve(scores.windows.windows.size());
    for (std::size_t i = 0; i < scores.windows.windows.size(); ++i) {
        scores.windowTexts.push_back(
            analysis::windowText(*scores.corpus, scores.windows.windows[i]).text);
        scores.byText.emplace(scores.windowTexts.back(), i);
    }
    return scores;
}

QString windowLabel(const CorefScores& scores, std::size_t index) {
    const analysis::CorefWindow& window = scores.windows.windows.at(index);
    const auto& documents = scores.corpus->coref.documents;
    const std::string& id = documents.at(static_cast<std::size_t>(window.document)).id;
    // Counted within the document, as a reader finds it in the file.
    std::size_t within = 0;
    for (std::size_t i = index; i > 0 && scores.windows.windows[i - 1].document == window.document;
         --i) {
        ++within;
    }
    const QStringList words = QString::fromStdString(scores.windowTexts.at(index))
                                  .split(QLatin1Char(' '), Qt::SkipEmptyParts);
    QString start = words.mid(0, kTitleWords).join(QLatin1Char(' '));
    if (words.size() > kTitleWords) {
        start += QStringLiteral(" …");
    }
    const QString doc = id.empty() ? QObject::tr("document %1").arg(window.document + 1)
                                   : QString::fromStdString(id);
    return QObject::tr("%1 · window %2 · %3").arg(doc).arg(within + 1).arg(start);
}

std::shared_ptr<const WindowGold> windowGold(const CorefScores& scores,
                                             const analysis::SentenceAnalysis& result) {
    const auto it = scores.byText.find(result.text);
    if (it == scores.byText.end()) {
        return nullptr;
    }
    auto gold = std::make_shared<WindowGold>();
    gold->window = it->second;
    const analysis::CorefWindow& window = scores.windows.windows[it->second];
    gold->text = analysis::windowText(*scores.corpus, window);
    try {
        // The rule the scores were counted with, so the arcs join the units scored.
        const bool split = scores.options.multiword == analysis::MultiwordRule::Split;
        auto aligned =
            analysis::alignWords(result.tokens, gold->text.wordSpans, gold->text.forms,
                                 split ? gold->text.ownSpans : std::vector<analysis::ByteSpan>{},
                                 analysis::MissingWords::NoUnit);
        if (!aligned.ok()) {
            return nullptr;
        }
        gold->alignment = std::move(*aligned.alignment);
    } catch (const std::exception&) {
        return nullptr;  // spans that do not fit these tokens: no arcs rather than wrong ones
    }
    const auto hasToken = [&](int word) {
        return word >= 0 && static_cast<std::size_t>(word) < gold->alignment.wordUnit.size() &&
               gold->alignment.wordUnit[static_cast<std::size_t>(word)] >= 0;
    };
    for (const analysis::CorefArc& arc : analysis::corefArcs(*scores.corpus, window)) {
        if (hasToken(arc.from) && hasToken(arc.to)) {
            gold->arcs.push_back(arc);
        }
    }
    return gold;
}

void CorefDocument::setScores(std::shared_ptr<const CorefScores> scores) {
    const auto model = scores ? scores->model : nullptr;
    if (scores && model != session().model()) {
        return;  // scored with a model that is no longer open
    }
    HeadOverlays::WindowGoldSource source;
    if (scores) {
        m_corpus = scores->corpus;
        source = [scores](const analysis::SentenceAnalysis& result) {
            return windowGold(*scores, result);
        };
    }
    // The views that follow changed() read the new arcs already.
    HeadOverlays& overlays = session().overlays();
    overlays.setWindowGoldSource(std::move(source));
    keep(std::move(scores), model);
    emit overlays.windowGoldChanged();
}

}  // namespace attnscope::app
