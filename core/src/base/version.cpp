#include "attnscope/base/version.h"

namespace attnscope {

std::string_view version() {
    return ATTNSCOPE_VERSION;
}

}  // namespace attnscope
