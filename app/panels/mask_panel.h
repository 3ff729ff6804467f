// The "Mask & scale" panel: which mask every head is computed with (the model's default,
// none, causal with an offset, custom cells, appended padding), the logit scale (1/sqrt(d_k)
// or a typed value) and how heatmaps are coloured (colour map, linear/log/per-row). Changes go
// straight to the session; all heads recompute.
#pragma once

#include <QWidget>

class QBoxLayout;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace attnscope::app {

class AnalysisSession;

class MaskPanel : public QWidget {
    Q_OBJECT

public:
    explicit MaskPanel(AnalysisSession* session, QWidget* parent = nullptr);

private:
    // Each group of controls, made and put in a titled box of its own.
    void addMaskGroup(QBoxLayout* into);
    void addScaleGroup(QBoxLayout* into);
    void addColourGroup(QBoxLayout* into);
    void addMemoryGroup(QBoxLayout* into);
    void syncFromSession();
    void applyMask();
    void applyScale();
    void applyStyle();

    AnalysisSession* m_session;
    QComboBox* m_kind;
    QSpinBox* m_offset;
    QSpinBox* m_padding;
    QLabel* m_maskHelp;
    QComboBox* m_scaleMode;
    QLineEdit* m_scale;
    QLabel* m_scaleHelp;
    QComboBox* m_colormap;
    QComboBox* m_scaling;
    QSpinBox* m_budget;
    QCheckBox* m_truncate;
};

}  // namespace attnscope::app
