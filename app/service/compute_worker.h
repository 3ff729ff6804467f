// Runs forward passes in its own thread (ComputeService moves it to a QThread). Stateless
// between requests: each request carries the model, the text, the options and a generation
// number, and the answer carries the generation back so stale results can be dropped.
// Exceptions stop here and become `failed`.
#pragma once

#include <memory>
#include <string>

#include <QObject>
#include <QString>

#include "attnscope/analysis/sentence_analysis.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/model/model.h"

namespace attnscope::app {

struct ComputeRequest {
    quint64 generation = 0;
    std::shared_ptr<const model::Model> model;
    std::string text;
    forward::ForwardOptions options;  // carries the cancel token
};

class ComputeWorker : public QObject {
    Q_OBJECT

public slots:
    void compute(const attnscope::app::ComputeRequest& request);

signals:
    void computed(quint64 generation,
                  std::shared_ptr<const attnscope::analysis::SentenceAnalysis> result,
                  double milliseconds);
    void failed(quint64 generation, const QString& message);
    void cancelled(quint64 generation);
};

}  // namespace attnscope::app

Q_DECLARE_METATYPE(attnscope::app::ComputeRequest)
Q_DECLARE_METATYPE(std::shared_ptr<const attnscope::analysis::SentenceAnalysis>)
