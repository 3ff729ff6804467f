// The version string written into exports and printed by `attnscope-cli --version`.
#pragma once

#include <string_view>

namespace attnscope {

std::string_view version();

}  // namespace attnscope
