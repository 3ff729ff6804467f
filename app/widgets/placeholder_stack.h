// A view's two faces: its page, or in its place one centred, wrapped line in the placeholder
// colour that says why there is nothing to show ("No result yet. …", "Computing head 2·3…").
// The caller names both (object names). GUI thread only.
#pragma once

#include <QStackedWidget>

class QLabel;

namespace attnscope::app {

class PlaceholderStack : public QStackedWidget {
    Q_OBJECT

public:
    // Fills `parent` (its layout, no margins); the placeholder shows until showPage().
    explicit PlaceholderStack(QWidget* parent);

    // The view's content, shown by showPage().
    void setPage(QWidget* page);

    QLabel* placeholder() const { return m_placeholder; }

    void showPlaceholder(const QString& text);
    void showPage();

    // False while the placeholder is shown.
    bool showsPage() const;

private:
    QLabel* m_placeholder;
};

}  // namespace attnscope::app
