// An analysis's own state in the session — its corpus, its scores, its run — beside the sentence
// state that the AnalysisSession keeps for every view. Each analysis defines its document in its
// folder (analyses/<name>/<name>_document.h); the session makes one of each kind the first time
// it is asked for it (AnalysisSession::document<T>()) and owns it, so the session itself names
// no analysis. A new model is the one event every document must follow: the session has each
// drop what the old model computed before it tells anyone of the model, and has them announce
// what they dropped after its own signals, in the order they were made.
#pragma once

#include <QObject>

namespace attnscope::app {

class AnalysisSession;

class AnalysisDocument : public QObject {
    Q_OBJECT

public:
    explicit AnalysisDocument(AnalysisSession& session) : m_session(session) {}

    // Another model opened: drops what the old one computed; true when there was something.
    virtual bool dropModel() = 0;
    // After the session's own signals, when dropModel() returned true: the document's signals.
    virtual void announceDropped() = 0;

protected:
    AnalysisSession& session() const { return m_session; }

private:
    AnalysisSession& m_session;
};

}  // namespace attnscope::app
