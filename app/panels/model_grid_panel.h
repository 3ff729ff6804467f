// The "Model: layers × heads" dock's contents: which attention kind the thumbnails show
// (encoder-decoder models), their order (model order, by mean entropy, by max |logit|) and the
// grid of every head, kept on the session's result, style and ablation effects.
#pragma once

#include <QWidget>

namespace attnscope::app {

class AnalysisSession;
class HeadGridModel;
class HeadGridView;

class ModelGridPanel : public QWidget {
    Q_OBJECT

public:
    explicit ModelGridPanel(AnalysisSession* session, QWidget* parent = nullptr);

    HeadGridView* grid() const { return m_grid; }

private:
    void showResult();

    AnalysisSession* m_session;
    HeadGridModel* m_model;
    HeadGridView* m_grid;
};

}  // namespace attnscope::app
