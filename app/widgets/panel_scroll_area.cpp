#include "widgets/panel_scroll_area.h"

#include <QScrollBar>

namespace attnscope::app {

PanelScrollArea::PanelScrollArea(QWidget* panel, QWidget* parent) : QScrollArea(parent) {
    setWidget(panel);
    setWidgetResizable(true);
    setFrameShape(QFrame::NoFrame);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
}

QSize PanelScrollArea::minimumSizeHint() const {
    QSize size = QScrollArea::minimumSizeHint();
    if (widget() == nullptr) {
        return size;
    }
    const QSize panel = widget()->minimumSizeHint();
    const int frame = 2 * frameWidth();
    // Room for the vertical scroll bar too: with it shown, the panel must still fit.
    size.setWidth(panel.width() + verticalScrollBar()->sizeHint().width() + frame);
    return size;
}

}  // namespace attnscope::app
