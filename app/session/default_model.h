// Where the small models AttnScope ships are found at run time: the default model
// (resources/default_model, a masked LM trained by packaging/default_model) and the circuits
// model (resources/circuits_model, a causal LM with an induction circuit, trained by
// packaging/circuits_model).
#pragma once

#include <QString>

namespace attnscope::app {

// The folder of the default model: <exe>/../share/attnscope/default_model when installed, else
// the source tree's resources/default_model of this build; empty if neither has a config.json.
QString defaultModelDir();

// The same for the circuits model (share/attnscope/circuits_model, resources/circuits_model).
QString circuitsModelDir();

}  // namespace attnscope::app
