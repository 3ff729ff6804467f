// The frame of a tab that shows its page or, in its place, a placeholder line (PlaceholderStack):
// the object names the tests find it by ("<name>View", "<name>Stack", "<name>Placeholder"), what
// they ask it (hasResult, placeholderText), and, for an analysis that computes only while its tab
// is on screen, its document told when the tab is shown and hidden. GUI thread only.
#pragma once

#include <functional>

#include <QWidget>

#include "widgets/placeholder_stack.h"

namespace attnscope::app {

class PlaceholderView : public QWidget {
    Q_OBJECT

public:
    // False while the placeholder (no result, an unsupported model, computing…) is shown.
    bool hasResult() const;

    // The placeholder's text (empty while the page is shown).
    QString placeholderText() const;

protected:
    // `name` prefixes the object names ("dla"). `onViewed`, when given, is told true when the
    // view is shown and false when it is hidden: usually settingViewed(document).
    PlaceholderView(const char* name, std::function<void(bool viewed)> onViewed, QWidget* parent);

    PlaceholderStack* stack() const { return m_stack; }

    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;

private:
    PlaceholderStack* m_stack;
    std::function<void(bool)> m_onViewed;
};

// The usual onViewed: a document whose job runs only while its tab is on screen (setViewed).
template <class Document>
std::function<void(bool)> settingViewed(Document& document) {
    return [&document](bool viewed) { document.setViewed(viewed); };
}

}  // namespace attnscope::app
