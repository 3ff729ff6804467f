// The generated fixture checkpoints (CTest fixture checkpoints, written by
// tests/reference/make_checkpoints.py): their folder, and one of them loaded by name.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "attnscope/model/model.h"

namespace attnscope::testing {

inline const std::filesystem::path kFixtureCheckpoints =
    std::filesystem::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";

inline std::shared_ptr<const model::Model> fixtureModel(const std::string& name) {
    return model::loadModel(kFixtureCheckpoints / name);
}

}  // namespace attnscope::testing
