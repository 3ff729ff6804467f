// Non-modal file dialogs (never exec(): the GUI thread must not block, and tests drive the
// window). The chosen path goes to the callback; the dialog deletes itself.
#pragma once

#include <functional>

#include <QString>

class QWidget;

namespace attnscope::app {

void askForSaveFile(QWidget* parent, const QString& title, const QString& filter,
                    const std::function<bool(const QString&)>& write);

}  // namespace attnscope::app
