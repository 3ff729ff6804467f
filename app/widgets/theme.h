// Light and dark palettes on the Fusion style, so the app reads the same on every desktop.
#pragma once

#include <QPalette>

namespace attnscope::app {

// The dark theme's palette (applyTheme(true) installs it); light is the style's standard one.
QPalette darkPalette();

void applyTheme(bool dark);

}  // namespace attnscope::app
