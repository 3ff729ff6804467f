// The message analyses throw when two inputs disagree in length. Internal to attnscope_core.
#pragma once

#include <cstddef>
#include <string>

namespace attnscope::analysis::detail {

// "<context>: <what> has N entries; expected M"
inline std::string sizeMismatch(const char* context, const char* what, std::size_t found,
                                std::size_t expected) {
    std::string msg = context;
    msg.append(": ").append(what).append(" has ").append(std::to_string(found));
    msg.append(" entries; expected ").append(std::to_string(expected));
    return msg;
}

}  // namespace attnscope::analysis::detail
