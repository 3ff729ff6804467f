// The "Generation" tab (issue 34, item 5): attention while a decoder-only model generates. The
// session's sentence is the prompt; Generate continues it N tokens (greedy, or sampled as
// llama.cpp's top_k → top_p → temperature chain with a seed) as a ComputeService job with
// progress per step and Cancel. Then the steps: a slider, ◀ ▶ and the Left/Right keys; the
// prompt and continuation as token chips (generated ones tinted with their probability, the
// step's token framed); the selected head's row over prompt + tokens so far as a bar strip (a
// click focuses a key); and every head's weight on the focused key (by default where the
// selected head looks most) as a layers × heads map (a click selects the head). Export: every
// step's rows as CSV (attnscope-cli generate --out's columns) and the current view as a figure.
// "Use as sentence" makes prompt + continuation the session's sentence. Models that cannot
// generate (encoders, masked LMs, encoder-decoders) get the reason. GUI thread only.
#pragma once

#include <memory>

#include <QWidget>

#include "analyses/generation/generation_document.h"
#include "attnscope/base/head_id.h"

class QComboBox;
class QDoubleSpinBox;
class QHBoxLayout;
class QLabel;
class QProgressBar;
class QPushButton;
class QSlider;
class QSpinBox;
class QSplitter;
class QToolButton;

namespace attnscope::app {

class AnalysisSession;
class GenerationJob;
class HeatmapWidget;
class PlaceholderStack;
class RowStrip;
class TokenChips;

class GenerationView : public QWidget {
    Q_OBJECT

public:
    GenerationView(AnalysisSession* session, GenerationJob& job, QWidget* parent = nullptr);

    // The run shown; null before the first Generate or with the placeholder.
    std::shared_ptr<const GenerationDocument::Run> shownRun() const;

    int step() const;
    void setStep(int step);

    // The key whose weights the heads' map shows, and the head whose row the strip shows.
    int focusKey() const;
    HeadId shownHead() const;

    // False while the placeholder (no model, a model that cannot generate) is shown.
    bool canGenerate() const;

    QString placeholderText() const;

    // Starts a generation with the controls' settings (as the Generate button does).
    void generate();

    TokenChips* chips() const { return m_chips; }

    RowStrip* rowStrip() const { return m_strip; }

    HeatmapWidget* heatmap() const { return m_heatmap; }

    QLabel* headline() const { return m_headline; }

    // Writes every step's rows (CSV) or the current view (PNG, SVG or PDF by the extension);
    // false, with the reason on the message bar, when there is no run or the file failed.
    bool exportCsv(const QString& path);
    bool exportFigure(const QString& path);

    // Makes the prompt and the continuation the session's sentence.
    void useAsSentence();

    // The job ended: the progress bar goes.
    void jobEnded(bool ok);

protected:
    void keyPressEvent(QKeyEvent* event) override;

private:
    QWidget* makeSettings();
    QHBoxLayout* makeSampling(QWidget* bar);
    QWidget* makeStepping();
    QWidget* makeResults();
    void refresh();
    void showStep();
    void samplingToggled();
    void pickKey(int key);
    QString mapTooltip(int layer, int head) const;
    bool canExport() const;

    AnalysisSession* m_session;
    GenerationDocument& m_document;
    GenerationJob& m_job;
    PlaceholderStack* m_stack;
    QSpinBox* m_steps;
    QComboBox* m_mode;
    QDoubleSpinBox* m_temperature;
    QSpinBox* m_topK;
    QDoubleSpinBox* m_topP;
    QSpinBox* m_seed;
    QPushButton* m_generate;
    QPushButton* m_cancel;
    QProgressBar* m_progress;
    QLabel* m_caption;
    QToolButton* m_previous;
    QSlider* m_slider;
    QToolButton* m_next;
    QLabel* m_headline;
    QPushButton* m_useAsSentence;
    QWidget* m_export;
    PlaceholderStack* m_results;
    TokenChips* m_chips;
    QSpinBox* m_layer;
    QSpinBox* m_head;
    RowStrip* m_strip;
    QLabel* m_mapTitle;
    HeatmapWidget* m_heatmap;
    QSplitter* m_split = nullptr;
    bool m_splitFitted = false;
    int m_pickedKey = -1;  // a key clicked in the strip; -1: where the head looks most
};

}  // namespace attnscope::app
