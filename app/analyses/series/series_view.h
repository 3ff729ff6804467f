// The "Training" tab (issue 33): a series of training checkpoints — Pythia's step1000,
// step2000, … folders — with every head's statistic (entropy, max |logit|, first-token mass,
// previous-token score, one-hot share, induction probe) against the step, for the sentence on
// screen (SeriesChart over SeriesDocument's statistics, which SeriesJob computes). The checkpoint
// box and its arrows open a checkpoint of the series as the session's model, so every view (the
// grid first) steps through training; clicking a point opens that head of that checkpoint.
// GUI thread only.
#pragma once

#include <QWidget>

#include "attnscope/base/head_id.h"

class QComboBox;
class QLabel;
class QPushButton;

namespace attnscope::app {

class AnalysisSession;
class ComputeService;
class PlaceholderStack;
class SeriesChart;

class SeriesView : public QWidget {
    Q_OBJECT

public:
    enum class Metric { Entropy, MaxLogit, SinkMass, PrevToken, OneHot, InductionProbe };

    SeriesView(AnalysisSession* session, ComputeService* service, QWidget* parent = nullptr);

    // Reads the folder's step<N> / checkpoint-<N> subfolders as the series; a folder that is
    // none goes to the message bar. Returns whether it was taken.
    bool openSeries(const QString& folder);

    // Opens checkpoint k of the series as the session's model.
    void openCheckpoint(int k);

    SeriesChart* chart() const { return m_chart; }

    QLabel* summary() const { return m_summary; }

signals:
    void headActivated(attnscope::HeadId head);

private:
    QWidget* makeControls();
    void askForFolder();
    void refresh();
    void refreshCurrent();
    void showProgress(int done, int total);

    AnalysisSession* m_session;
    ComputeService* m_service;
    PlaceholderStack* m_stack;
    QPushButton* m_open;
    QComboBox* m_metric;
    QPushButton* m_prev;
    QComboBox* m_checkpoint;
    QPushButton* m_next;
    QLabel* m_summary;
    SeriesChart* m_chart;
};

}  // namespace attnscope::app
