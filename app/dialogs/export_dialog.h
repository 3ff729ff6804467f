// File ▸ Export ▸ Figure…: choose what to draw (the selected head, a list of heads, or the
// whole layers × heads grid), the pixel size and DPI, see a preview, and save as PNG, SVG or
// PDF (by extension). Non-modal; errors go to the session's message bar, nothing is lost.
#pragma once

#include <vector>

#include <QDialog>

#include "attnscope/base/head_id.h"

class QLabel;
class QLineEdit;
class QRadioButton;
class QSpinBox;

namespace attnscope::app {

class AnalysisSession;

class ExportDialog : public QDialog {
    Q_OBJECT

public:
    enum class Choice { SelectedHead, HeadList, WholeGrid };

    explicit ExportDialog(AnalysisSession* session, QWidget* parent = nullptr);

    void setChoice(Choice choice, const QString& heads = {});
    void setPixelSize(int width, int height, int dpi);
    // Writes the figure; reports errors to the session and returns false on failure.
    bool exportTo(const QString& path);

private:
    // The heads to draw; nullopt (with the reason in the preview) when the list is invalid.
    std::optional<std::vector<HeadId>> heads() const;
    void updatePreview();
    void askForFile();

    AnalysisSession* m_session;
    QRadioButton* m_selected;
    QRadioButton* m_list;
    QRadioButton* m_grid;
    QLineEdit* m_heads;
    QSpinBox* m_width;
    QSpinBox* m_height;
    QSpinBox* m_dpi;
    QLabel* m_preview;
};

}  // namespace attnscope::app
