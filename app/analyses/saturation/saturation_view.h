// The "Saturation" tab (issue 33): the saturation lab. Its controls switch the whole model's
// QK-norm (the model's own, off, or unit weights — ViT-22B's repair after the fact) and
// attention soft-cap (the model's own, off, or a typed cap) — what-ifs every view recomputes
// with, like the scale of the Mask & scale panel, which they sit beside in the session. Below, a
// caption counts the saturated heads and the chart plots every head's mean entropy against its
// largest |logit| at a chosen stage (after the cap, before it, before QK-norm), with the model as
// it is beneath while a what-if is on (SaturationDocument's baseline). Heads ablated in the
// session are shown as the clean pass has them. Clicking a head selects it and emits
// headActivated. GUI thread only.
#pragma once

#include <vector>

#include <QWidget>

#include "attnscope/analysis/saturation.h"
#include "attnscope/base/head_id.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;

namespace attnscope::app {

class AnalysisSession;
class PlaceholderStack;
class SaturationScatter;

class SaturationView : public QWidget {
    Q_OBJECT

public:
    // Which largest |logit| the x axis shows.
    enum class Stage { Softmax, BeforeCap, BeforeQkNorm };

    explicit SaturationView(AnalysisSession* session, QWidget* parent = nullptr);

    SaturationScatter* scatter() const { return m_scatter; }

    QLabel* caption() const { return m_caption; }

    // False while the empty-state placeholder is shown.
    bool hasResult() const;

    // The statistics shown: with the session's what-ifs, and the model as it is (empty without
    // a what-if, and until the baseline arrives).
    const std::vector<analysis::HeadSaturation>& shown() const { return m_shown; }

    const std::vector<analysis::HeadSaturation>& baseline() const { return m_baseline; }

signals:
    void headActivated(attnscope::HeadId head);

private:
    QWidget* makeControls();
    void syncControls();
    void applyQkNorm();
    void applySoftcap();
    void refresh();
    QString captionText() const;

    AnalysisSession* m_session;
    PlaceholderStack* m_stack;
    QComboBox* m_qkNorm;
    QComboBox* m_softcap;
    QLineEdit* m_cap;
    QComboBox* m_stage;
    QPushButton* m_reset;
    QLabel* m_caption;
    SaturationScatter* m_scatter;
    std::vector<analysis::HeadSaturation> m_shown;
    std::vector<analysis::HeadSaturation> m_baseline;
};

}  // namespace attnscope::app
