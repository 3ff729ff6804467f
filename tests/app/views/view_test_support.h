// What the Qt tests of the views share: a fixture checkpoint with its analysis of a few token
// ids, the two checkpoints a data-driven case runs on, and a view shown and exposed.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <QString>
#include <QTest>
#include <QWidget>

#include "session/analysis_session.h"
#include "view_test_data.h"

namespace attnscope::test {

// Ids inside both fixture vocabularies; BERT's start with [CLS] and end with [SEP].
inline const std::vector<std::int32_t> kGpt2Ids = {10, 45, 200, 31, 99, 7, 300, 12, 64};
inline const std::vector<std::int32_t> kBertIds = {101, 127, 405, 368, 182, 379, 102};

struct Loaded {
    std::shared_ptr<const model::Model> model;
    std::shared_ptr<const analysis::SentenceAnalysis> result;
};

// The ids a checkpoint of the fixtures reads: kGpt2Ids for "gpt2…", else kBertIds.
inline const std::vector<std::int32_t>& idsFor(const QString& name) {
    return name.startsWith(QStringLiteral("gpt2")) ? kGpt2Ids : kBertIds;
}

// The fixture checkpoint `name` and its analysis of idsFor(name).
inline Loaded loadIds(const QString& name, const forward::MaskChoice& mask = {}) {
    Loaded l;
    l.model = loadFixtureModel(name.toStdString());
    l.result = analyze(*l.model, idsFor(name), mask);
    return l;
}

// `l` with its model set in `session` under `name`: before a view of the session is made, as
// the window does; the test sets the result once the view is there.
inline Loaded withModel(app::AnalysisSession& session, Loaded l, const QString& name) {
    session.setModel(l.model, name);
    return l;
}

inline Loaded withModel(app::AnalysisSession& session, const QString& name) {
    return withModel(session, loadIds(name), name);
}

// A `View` of a session that has the fixture checkpoint open, made once the model is set, as
// the window does; a case binds the three, e.g. `auto& [session, l, view] = shown;`.
template <typename View>
struct ViewOf {
    explicit ViewOf(const QString& checkpoint) : loaded(withModel(session, checkpoint)) {}

    // The view shown at width x height, then, once exposed, given the analysis; false when it
    // was not exposed.
    bool showWithResult(int width, int height);

    app::AnalysisSession session;
    Loaded loaded;
    View view{&session};
};

// The "checkpoint" column of a data-driven case: a causal and a bidirectional model.
inline void addCheckpointRows() {
    QTest::addColumn<QString>("checkpoint");
    QTest::newRow("gpt2 causal") << QString("gpt2_f32");
    QTest::newRow("bert bidirectional") << QString("bert_f32");
}

// `view` at width x height, shown; false when it was not exposed (nothing painted then).
inline bool showExposed(QWidget& view, int width, int height) {
    view.resize(width, height);
    view.show();
    return QTest::qWaitForWindowExposed(&view);
}

template <typename View>
bool ViewOf<View>::showWithResult(int width, int height) {
    if (!showExposed(view, width, height)) {
        return false;
    }
    session.setResult(loaded.result);
    return true;
}

}  // namespace attnscope::test
