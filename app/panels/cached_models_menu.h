// File ▸ From the Hugging Face cache: the model folders found in the cache (supported ones
// enabled, each with the finder's note as tool tip), listed afresh whenever the menu opens.
#pragma once

#include <functional>

#include <QString>

class QMenu;

namespace attnscope::app {

// Adds the submenu to `file`; choosing a model calls `open` with its folder.
QMenu* addCachedModelsMenu(QMenu* file, std::function<void(const QString&)> open);

}  // namespace attnscope::app
