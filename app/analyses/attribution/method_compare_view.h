// The Methods tab (issue 19): two attribution methods' maps of the same layer side by side,
// each with its own method (raw attention, the layer's mean of heads, against ALTI by
// default), one line under each saying what it measures, a slow method's progress with Cancel,
// how far the two agree (Pearson correlation over the cells and the mean over query rows), and
// the pair exported as one figure (PNG, SVG, PDF). The layer follows the selected head's.
// Maps are asked of the session only while the tab is on screen: ALTI or value zeroing on
// every sentence typed would be work nobody looks at. GUI thread only.
#pragma once

#include <optional>

#include <QStringList>
#include <QWidget>

#include "attnscope/analysis/attribution.h"
#include "attnscope/base/tensor.h"

class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace attnscope::app {

class AnalysisSession;
class AttributionStatusLine;
class HeatmapWidget;

class MethodCompareView : public QWidget {
    Q_OBJECT

public:
    explicit MethodCompareView(AnalysisSession* session, QWidget* parent = nullptr);

    HeatmapWidget* left() const { return m_left; }

    HeatmapWidget* right() const { return m_right; }

    QComboBox* leftMethod() const { return m_leftMethod; }

    QComboBox* rightMethod() const { return m_rightMethod; }

    AttributionStatusLine* status() const { return m_status; }

    // The agreement line under the maps; empty until both are shown.
    QString agreement() const;

    // The two maps with their titles and descriptions as one figure; false (and the message
    // bar told) on failure.
    bool saveFigure(const QString& path);

    void refresh();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void connectControls();
    // Draws one side; false while its maps are not there (a placeholder says why).
    bool showSide(int side, const QStringList& labels);
    void showAgreement();

    AnalysisSession* m_session;
    QSpinBox* m_layer;
    QComboBox* m_leftMethod;
    QComboBox* m_rightMethod;
    QPushButton* m_export;
    AttributionStatusLine* m_status;
    QLabel* m_ablated;
    QWidget* m_pair;  // the maps and their descriptions: what the figure shows
    HeatmapWidget* m_left;
    HeatmapWidget* m_right;
    QLabel* m_leftMeaning;
    QLabel* m_rightMeaning;
    QLabel* m_agreement;
    QStringList m_labels;
    std::optional<Matrix> m_maps[2];  // on screen, for the tool tips and the agreement
};

}  // namespace attnscope::app
