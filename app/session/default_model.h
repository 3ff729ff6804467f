// Where the small model AttnScope ships (resources/default_model, trained by
// packaging/default_model) is found at run time.
#pragma once

#include <QString>

namespace attnscope::app {

// The folder of the default model: <exe>/../share/attnscope/default_model when installed, else
// the source tree's resources/default_model of this build; empty if neither has a config.json.
QString defaultModelDir();

}  // namespace attnscope::app
