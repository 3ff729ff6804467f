// Non-modal file dialogs (never exec(): the GUI thread must not block, and tests drive the
// window). The chosen path goes to the callback; the dialog deletes itself.
#pragma once

#include <functional>

#include <QString>

class QWidget;

namespace attnscope::app {

void askForSaveFile(QWidget* parent, const QString& title, const QString& filter,
                    const std::function<bool(const QString&)>& write);

// A model to open, in one dialog although a file dialog picks either files or folders: a .gguf
// file (Ollama's blobs, which have no extension, under "All files"), or a Hugging Face model
// folder, picked by its config.json. `chosen` gets the .gguf file or the folder. `objectName`
// names the dialog for tests.
void askForModelPath(QWidget* parent, const QString& title,
                     const std::function<void(const QString&)>& chosen,
                     const QString& objectName = {});

}  // namespace attnscope::app
