// The "Sentences" dock: a list of sentences loaded from a .txt or CoNLL-U file, stepped
// through with Previous/Next (Alt+Up/Alt+Down) or a click; the chosen sentence becomes the
// session's text. A file that cannot be read is reported and the old list stays.
#pragma once

#include <QWidget>

class QListView;
class QStringListModel;
class QLabel;

namespace attnscope::app {

class AnalysisSession;

class SentencePanel : public QWidget {
    Q_OBJECT

public:
    explicit SentencePanel(AnalysisSession* session, QWidget* parent = nullptr);

    // Short by default: the bottom dock area starts at this height, the heads need the room.
    QSize sizeHint() const override { return {480, 170}; }

    // Reads the file and picks its first sentence; on error reports it through the session and
    // returns false.
    bool loadFile(const QString& path);
    // Opens a (non-modal) file dialog; the chosen file is loaded.
    void askForFile();
    void step(int delta);
    // Lists `sentences` (from `source`, a file name) without picking one: the sentence typed
    // stays until the user picks another (a scored treebank fills the list this way).
    void showSentences(const QStringList& sentences, const QString& source);

    QStringListModel* sentences() const { return m_model; }

private:
    AnalysisSession* m_session;
    QStringListModel* m_model;
    QListView* m_list;
    QLabel* m_source;
};

}  // namespace attnscope::app
