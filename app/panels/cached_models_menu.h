// File ▸ Models on this computer: the models found in the Hugging Face cache, llama.cpp's cache
// and Ollama's store (local_models.h), each on one line with its type, quantization, size and
// source; those AttnScope cannot open are greyed out with the reason as tool tip. Listed afresh
// whenever the menu opens.
#pragma once

#include <functional>

#include <QString>

class QMenu;

namespace attnscope::app {

// Adds the submenu to `file`; choosing a model calls `open` with its folder or GGUF file.
QMenu* addCachedModelsMenu(QMenu* file, std::function<void(const QString&)> open);

}  // namespace attnscope::app
