#include "analyses/model_compare/second_model_job.h"

#include <QFileInfo>

#include "analyses/model_compare/model_compare_document.h"
#include "session/analysis_session.h"

namespace attnscope::app {

namespace {

QString shapeText(const model::Model& m) {
    return QObject::tr("%1 layers × %2 heads").arg(m.spec.nLayers).arg(m.spec.nHeads);
}

// Why `b` cannot be compared with the session's `a`, naming both models and both shapes; empty
// when it can.
QString refusal(const model::Model& a, const QString& nameA, const model::Model& b,
                const QString& nameB) {
    if (b.isEncoderDecoder()) {
        return QObject::tr(
                   "%1 is an encoder-decoder model: the comparison takes models with one "
                   "stack of layers, like %2.")
            .arg(nameB, nameA);
    }
    if (a.spec.nLayers != b.spec.nLayers || a.spec.nHeads != b.spec.nHeads) {
        return QObject::tr(
                   "%1 has %2, but %3 (the model open) has %4: the comparison needs two "
                   "models with the same layers and heads, such as one model's F16 and "
                   "Q4_K_M files.")
            .arg(nameB, shapeText(b), nameA, shapeText(a));
    }
    return {};
}

}  // namespace

SecondModelJob::SecondModelJob(ComputeService& service)
    : CorpusJob(service, tr("Comparing with another model")) {}

void SecondModelJob::open(const QString& chosen) {
    const QString path = QFileInfo(chosen).absoluteFilePath();
    const auto modelA = model();
    Work work = [this, path, modelA](const CancelToken& cancel,
                                     JobProgress& progress) -> JobRunner::ApplyStep {
        model::LoadOptions options;
        options.cancel = cancel;
        options.progress = passesDone(progress);
        std::shared_ptr<const model::Model> b = model::loadModel(path.toStdString(), options);
        return [this, path, modelA, b] {
            if (modelA != session().model()) {
                return;  // checked against a model no longer open
            }
            auto& document = session().document<ModelCompareDocument>();
            const QString why = refusal(*modelA, document.nameA(), *b, QFileInfo(path).fileName());
            if (!why.isEmpty()) {
                document.refuse(why);
                return;
            }
            document.setSecondModel({b, path});
        };
    };
    const QString file = QFileInfo(path).fileName();
    CorpusJob::start(path, std::move(work),
                     {tr("Could not open %1 to compare with: ").arg(file),
                      tr("Opening %1 to compare with was cancelled.").arg(file)});
}

}  // namespace attnscope::app
