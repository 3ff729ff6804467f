// A dock's panel inside a scroll area that scrolls vertically when the dock is short but never
// horizontally: the dock cannot be made narrower than the panel's minimum width, so labels,
// combo boxes and prediction bars are never cut at the right edge (issue 15). The minimum is
// asked of the panel whenever the layout asks, so it follows style and font changes.
#pragma once

#include <QScrollArea>

namespace attnscope::app {

class PanelScrollArea : public QScrollArea {
public:
    enum class Keep {
        Width,           // short docks scroll
        WidthAndHeight,  // the whole panel always shows (a few rows, such as the predictions)
    };

    PanelScrollArea(QWidget* panel, Keep keep, QWidget* parent = nullptr);

    QSize minimumSizeHint() const override;

private:
    Keep m_keep;
};

}  // namespace attnscope::app
