// A row of controls above a view, written as the list of what stands in it: widgets (with their
// stretch), captions (a QLabel made for the row), fixed gaps and stretches. The views' tool rows
// (Head, Lines, Compare, Methods) then read as what they show rather than as calls. GUI thread.
#pragma once

#include <initializer_list>

#include <QString>

class QHBoxLayout;
class QWidget;

namespace attnscope::app {

class RowItem {
public:
    RowItem(QWidget* widget, int stretch = 0) : m_widget(widget), m_amount(stretch) {}

    // A caption: a QLabel with `text`, owned by the row's parent.
    RowItem(const QString& text) : m_kind(Kind::Caption), m_text(text) {}

    static RowItem spacing(int pixels) { return RowItem(Kind::Spacing, pixels); }

    static RowItem stretch(int factor = 1) { return RowItem(Kind::Stretch, factor); }

private:
    enum class Kind { Widget, Caption, Spacing, Stretch };

    RowItem(Kind kind, int amount) : m_kind(kind), m_amount(amount) {}

    friend QHBoxLayout* controlRow(QWidget* parent, std::initializer_list<RowItem> items);

    Kind m_kind = Kind::Widget;
    QWidget* m_widget = nullptr;
    QString m_text;
    int m_amount = 0;  // a widget's stretch, a gap's pixels or a stretch's factor
};

// A new QHBoxLayout (no parent: the caller adds it to its own layout) holding `items` in order.
QHBoxLayout* controlRow(QWidget* parent, std::initializer_list<RowItem> items);

}  // namespace attnscope::app
