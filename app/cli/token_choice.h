// The token a circuit command is asked about (dla, lens): a vocabulary piece (--target) or an
// id (--target-id). No Qt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "attnscope/model/model.h"

namespace attnscope::cli {

// The id of vocabulary piece `piece`, or `id` checked against the vocabulary; `option` names
// the option in errors ("--target: 'x' is not a piece …", "--target-id: 9 is outside …").
// nullopt when neither was given.
std::optional<std::int32_t> tokenChoice(const model::Model& m,
                                        const std::optional<std::string>& piece,
                                        const std::optional<std::int64_t>& id,
                                        const std::string& option);

}  // namespace attnscope::cli
