#include "analyses/survey/survey_document.h"

#include <algorithm>
#include <cmath>

#include <QFileInfo>
#include <QObject>
#include <QStringList>

#include "attnscope/base/error.h"
#include "session/analysis_session.h"

namespace attnscope::app {

const std::vector<analysis::HeadLabel>& SurveyRun::labelsOf(HeadId head) const {
    return labelsOfHead(labels, nLayers(), nHeads(), head);
}

SurveyRun computeSurveyRun(std::shared_ptr<const model::Model> model, const QString& path,
                           const std::vector<text::Sentence>* known, const SurveyRequest& request,
                           const CancelToken& cancel, const ProgressFn& progress,
                           std::size_t shares, const analysis::ShareExecutor& run) {
    SurveyRun out;
    const analysis::SurveyCorpus corpus = analysis::readSurveyCorpus(
        *model, path.toStdString(), static_cast<std::size_t>(std::max(request.maxSentences, 0)),
        cancel, known);
    out.sentencesInFile = corpus.inFile;
    if (corpus.ids.empty()) {
        throw InvalidArgument(
            path.toStdString() + ": no sentence to survey (" + std::to_string(corpus.read) +
            " read, " + std::to_string(corpus.tooLong) + " longer than the model's positions)");
    }
    analysis::SurveyOptions options;
    options.sinkEps = request.sinkEps;
    options.probeRepeats = request.probeRepeats;
    options.probeLength = request.probeLength;
    options.probeSeed = request.probeSeed;
    options.rareTop = request.rareTop;
    analysis::addCorpusIds(*model, corpus, options);
    out.options = options;  // as run, without the job's token and callback
    options.shares = shares;
    options.cancel = cancel;
    options.progress = progress;
    analysis::SurveyRun result = analysis::runSurvey(*model, corpus, options, {}, run);
    out.survey = std::move(result.survey);
    if (result.dependencies) {
        out.dependencies = analysis::dependencyLabels(*result.dependencies);
        out.bestRelations = analysis::bestRelations(*out.dependencies);
    }
    out.corpusPath = path;
    out.model = std::move(model);
    out.request = request;
    out.sentencesUsed = corpus.read;
    out.tooLong = corpus.tooLong;
    relabel(out, request.rules);
    return out;
}

void relabel(SurveyRun& run, const analysis::LabelRules& rules) {
    run.request.rules = rules;
    run.labels =
        analysis::labelHeads(run.survey, rules, run.dependencies ? &*run.dependencies : nullptr);
}

QString surveySummary(const SurveyRun& run) {
    const auto labelled = std::count_if(run.labels.begin(), run.labels.end(),
                                        [](const auto& l) { return !l.empty(); });
    QString text = QObject::tr("%1: %2 sentences surveyed")
                       .arg(QFileInfo(run.corpusPath).fileName())
                       .arg(run.survey.sentences);
    if (run.sentencesUsed < run.sentencesInFile) {
        text +=
            QObject::tr(" (the first %1 of %2)").arg(run.sentencesUsed).arg(run.sentencesInFile);
    }
    if (run.tooLong > 0) {
        text += QObject::tr(", %1 too long for the model left out").arg(run.tooLong);
    }
    // A run built by hand may lack scores: score() would throw inside a signal handler.
    const auto probe = run.survey.scores.find("probe_induction");
    const bool probed =
        probe != run.survey.scores.end() && std::any_of(probe->second.begin(), probe->second.end(),
                                                        [](double x) { return std::isfinite(x); });
    if (probed) {
        text += QObject::tr("; induction probe: %1 random sequences of %2 tokens")
                    .arg(run.options.probeRepeats)
                    .arg(run.options.probeLength);
    }
    if (run.dependencies) {
        text +=
            QObject::tr("; %1 dependency relations scored").arg(run.dependencies->relations.size());
    }
    text += QObject::tr("; %1 of %2 heads labelled")
                .arg(labelled)
                .arg(static_cast<qsizetype>(run.labels.size()));
    return text;
}

void SurveyDocument::setRun(std::shared_ptr<const SurveyRun> run) {
    const std::shared_ptr<const model::Model> model = run ? run->model : nullptr;
    if (!keep(run, model)) {
        return;
    }
    // Shares the run: the labels live as long as a view holds them. (Another model's run drops
    // them with the session's overlays.)
    session().overlays().setLabels(
        run ? HeadLabels{std::shared_ptr<const LabelsByHead>(run, &run->labels), run->nLayers(),
                         run->nHeads()}
            : HeadLabels{});
}

}  // namespace attnscope::app
