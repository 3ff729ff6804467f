// The shared data folder beside the repository (../shared: UD treebanks, real tokenizer files,
// never copied into the repo). Tests that need it skip, naming the path, when it is absent.
#pragma once

#include <filesystem>

#include <gtest/gtest.h>

namespace attnscope::testing {

inline const std::filesystem::path kSharedTokenizers =
    std::filesystem::path(ATTNSCOPE_SHARED_DIR) / "data" / "tokenizers";

}  // namespace attnscope::testing

// Skips the calling test when the shared-data folder `folder` is absent.
#define ATTNSCOPE_SKIP_WITHOUT(folder)                                                         \
    if (!std::filesystem::exists(folder)) {                                                    \
        GTEST_SKIP() << "shared data not found at " << std::filesystem::path(folder).string(); \
    }
