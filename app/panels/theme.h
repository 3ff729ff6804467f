// Light and dark palettes on the Fusion style, so the app reads the same on every desktop.
#pragma once

namespace attnscope::app {

void applyTheme(bool dark);

}  // namespace attnscope::app
