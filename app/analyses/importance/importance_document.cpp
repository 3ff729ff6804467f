#include "analyses/importance/importance_document.h"

#include <algorithm>

#include <QFileInfo>
#include <QObject>

#include "attnscope/text/sentence_file.h"

namespace attnscope::app {

std::vector<std::string> importanceSentences(const QString& path,
                                             const std::vector<std::string>* known,
                                             const ImportanceRequest& request,
                                             std::size_t* inFile) {
    std::vector<std::string> sentences = known ? *known : text::readSentences(path.toStdString());
    if (inFile) {
        *inFile = sentences.size();
    }
    if (request.maxSentences > 0 &&
        sentences.size() > static_cast<std::size_t>(request.maxSentences)) {
        sentences.resize(static_cast<std::size_t>(request.maxSentences));
    }
    return sentences;
}

ImportanceRun computeImportanceRun(std::shared_ptr<const model::Model> model, const QString& path,
                                   std::vector<std::string> sentences, std::size_t inFile,
                                   const ImportanceRequest& request, const CancelToken& cancel,
                                   const ProgressFn& progress, std::size_t shares,
                                   const analysis::ShareExecutor& run) {
    analysis::ImportanceOptions options;
    options.kind = request.kind;
    options.kvGroups = request.kvGroups;
    options.seed = request.seed;
    options.maskFraction = request.maskFraction;
    options.shares = shares;
    options.cancel = cancel;
    options.progress = progress;
    const analysis::ImportanceCorpus corpus =
        analysis::importanceCorpus(*model, sentences, options);
    options.sentenceOf = corpus.sentenceOf;  // the exports list masked targets by sentence
    ImportanceRun out;
    out.result = analysis::headImportance(*model, corpus.items, options, run);
    out.corpusPath = path;
    out.model = std::move(model);
    out.request = request;
    out.sentencesInFile = inFile;
    out.sentencesUsed = sentences.size();
    out.skipped = corpus.skipped;
    out.truncated = corpus.truncated;
    return out;
}

int importanceUnits(const model::Model& model, bool kvGroups) {
    const model::ModelSpec& spec = model.spec;
    return kvGroups && spec.nKvHeads > 0 ? spec.nKvHeads : spec.nHeads;
}

QString unitName(const analysis::ImportanceResult& result, int layer, int unit) {
    return result.kvGroups ? QObject::tr("group %1-g%2").arg(layer).arg(unit)
                           : QObject::tr("head %1-%2").arg(layer).arg(unit);
}

QString unitTitle(const analysis::ImportanceResult& result) {
    return result.kvGroups ? QObject::tr("Group") : QObject::tr("Head");
}

std::vector<int> importanceRanks(const analysis::ImportanceResult& result) {
    std::vector<int> ranks(result.order.size(), 0);
    const auto n = static_cast<int>(result.order.size());
    for (int i = 0; i < n; ++i) {
        const auto unit = static_cast<std::size_t>(result.order[static_cast<std::size_t>(i)]);
        if (unit < ranks.size()) {
            ranks[unit] = n - i;
        }
    }
    return ranks;
}

HeadId headOfUnit(const analysis::ImportanceResult& result, int nHeads, int layer, int unit) {
    if (!result.kvGroups || result.nUnits <= 0) {
        return {layer, unit};
    }
    return {layer, unit * std::max(1, nHeads / result.nUnits)};
}

QString ablationText(const ImportanceRun& run) {
    const QString kind = QString::fromStdString(forward::ablationKindName(run.result.kind));
    return run.result.kvGroups ? QObject::tr("%1 ablation of key/value groups").arg(kind)
                               : QObject::tr("%1 ablation of heads").arg(kind);
}

QString importanceSummary(const ImportanceRun& run) {
    const analysis::ImportanceResult& r = run.result;
    QString sentences =
        QObject::tr("%1 of %2 sentences").arg(run.sentencesUsed).arg(run.sentencesInFile);
    if (run.skipped > 0) {
        sentences += QObject::tr(" (%1 without a target left out)").arg(run.skipped);
    }
    if (run.truncated > 0) {
        sentences += QObject::tr(", %1 cut to the model's positions").arg(run.truncated);
    }
    return QObject::tr("%1 · %2 · %3: %4 · %5 targets · clean loss %6, accuracy %7 %")
        .arg(ablationText(run), QString::fromStdString(analysis::describeObjective(r)),
             QFileInfo(run.corpusPath).fileName(), sentences)
        .arg(r.targets)
        .arg(r.cleanLoss, 0, 'f', 3)
        .arg(100.0 * r.cleanAccuracy, 0, 'f', 1);
}

}  // namespace attnscope::app
