#include "widgets/control_row.h"

#include <QHBoxLayout>
#include <QLabel>

namespace attnscope::app {

QHBoxLayout* controlRow(QWidget* parent, std::initializer_list<RowItem> items) {
    auto* row = new QHBoxLayout;
    for (const RowItem& item : items) {
        switch (item.m_kind) {
            case RowItem::Kind::Widget:
                row->addWidget(item.m_widget, item.m_amount);
                break;
            case RowItem::Kind::Caption:
                row->addWidget(new QLabel(item.m_text, parent));
                break;
            case RowItem::Kind::Spacing:
                row->addSpacing(item.m_amount);
                break;
            case RowItem::Kind::Stretch:
                row->addStretch(item.m_amount);
                break;
        }
    }
    return row;
}

}  // namespace attnscope::app
