// What the Qt tests of the views share: a fixture checkpoint with its analysis of a few token
// ids, the two checkpoints a data-driven case runs on, and a view shown and exposed.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include <QString>
#include <QTest>
#include <QWidget>

#include "session/analysis_session.h"
#include "view_test_data.h"
#include "widget_test.h"

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

// A `View` of a session, made once the model is set, as the window does; a case binds the
// three, e.g. `auto& [session, l, view] = shown;`.
template <typename View>
struct ViewOf {
    // No model open: the view's empty state.
    ViewOf() = default;

    // The fixture checkpoint open, with its analysis of idsFor(checkpoint) to show.
    explicit ViewOf(const QString& checkpoint) : loaded(withModel(session, checkpoint)) {}

    // `l`, loaded another way, open under `name`.
    ViewOf(Loaded l, const QString& name) : loaded(withModel(session, std::move(l), name)) {}

    // The view shown at width x height; false when it was not exposed.
    bool show(int width, int height) { return showExposed(view, width, height); }

    // The view shown at width x height, then, once exposed, given the analysis; false when it
    // was not exposed.
    bool showWithResult(int width, int height);

    // `l` opened under `name` after the view was made, as when the window opens a model, and its
    // analysis shown.
    void open(Loaded l, const QString& name) {
        loaded = withModel(session, std::move(l), name);
        session.setResult(loaded.result);
    }

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

template <typename View>
bool ViewOf<View>::showWithResult(int width, int height) {
    if (!show(width, height)) {
        return false;
    }
    session.setResult(loaded.result);
    return true;
}

}  // namespace attnscope::test
