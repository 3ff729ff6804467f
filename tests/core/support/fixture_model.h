// The folder the reference fixtures write to (the build tree's fixtures: generated checkpoints
// and the references' outputs beside them); the fixture checkpoints (CTest fixture checkpoints,
// written by tests/reference/make_checkpoints.py): their folder, and one of them loaded by name.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "attnscope/model/model.h"

namespace attnscope::testing {

inline const std::filesystem::path kFixtureDir = ATTNSCOPE_FIXTURE_DIR;

inline const std::filesystem::path kFixtureCheckpoints = kFixtureDir / "checkpoints";

inline std::shared_ptr<const model::Model> fixtureModel(const std::string& name) {
    return model::loadModel(kFixtureCheckpoints / name);
}

}  // namespace attnscope::testing
