// Making a control and naming it in one step: the tests, the screenshots and the window's saved
// state find the app's controls by object name, so nearly every one is named where it is made.
// Also the muted, wrapped note line the panels put under their controls. Header-only, GUI thread.
#pragma once

#include <utility>

#include <QLabel>
#include <QString>

namespace attnscope::app {

// `new T(args...)` named `name`.
template <class T, class... Args>
T* named(const char* name, Args&&... args) {
    auto* object = new T(std::forward<Args>(args)...);
    object->setObjectName(QLatin1String(name));
    return object;
}

// A wrapped line in the placeholder colour: help under a panel's controls, what to do next.
inline QLabel* noteLabel(QWidget* parent, const QString& text = {}) {
    auto* label = new QLabel(text, parent);
    label->setWordWrap(true);
    label->setForegroundRole(QPalette::PlaceholderText);
    return label;
}

}  // namespace attnscope::app
