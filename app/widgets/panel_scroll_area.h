// A dock's panel inside a scroll area that scrolls vertically when the dock is short but never
// horizontally: the dock cannot be made narrower than the panel's minimum width, so labels,
// combo boxes and prediction bars are never cut at the right edge (issue 15). The minimum is
// asked of the panel whenever the layout asks, so it follows style and font changes.
#pragma once

#include <QScrollArea>

namespace attnscope::app {

class PanelScrollArea : public QScrollArea {
public:
    // Short docks scroll, the Predictions too (issue 30: with ablations its clean and ablated
    // lists are taller than a laptop's dock, and a minimum of their height pushed the window's
    // status bar off a 1024 × 700 screen).
    explicit PanelScrollArea(QWidget* panel, QWidget* parent = nullptr);

    QSize minimumSizeHint() const override;
};

}  // namespace attnscope::app
