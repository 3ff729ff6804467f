// A test fixture for tests that break fixture checkpoints: each test copies the folders it
// edits (config.json, the tensors) into its own scratch folder, so the shared fixtures stay
// intact.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "attnscope/io/safetensors.h"
#include "fixture_model.h"
#include "raw_tensors.h"
#include "test_files.h"

namespace attnscope::testing {

class CheckpointCopies : public ::testing::Test {
protected:
    // A copy of fixture checkpoint `name`; a missing fixture is an error naming it.
    std::filesystem::path copy(const std::string& name) {
        if (!std::filesystem::exists(kFixtureCheckpoints / name)) {
            throw std::runtime_error((kFixtureCheckpoints / name).string() + " missing");
        }
        return m_dir.copyOf(kFixtureCheckpoints / name, name);
    }

    // A copy of fixture checkpoint `name` whose config.json `edit` has changed.
    template <class Edit>
    std::filesystem::path withConfig(const std::string& name, Edit edit) {
        const std::filesystem::path dir = copy(name);
        editJson(dir / "config.json", edit);
        return dir;
    }

    // Rewrites model.safetensors of `dir` keeping only the tensors `keep` accepts, renamed
    // by `rename`.
    template <class Keep, class Rename>
    static void rewriteWeights(const std::filesystem::path& dir, Keep keep, Rename rename) {
        std::vector<RawTensor> tensors;
        {  // the file is closed before it is written over
            const io::SafetensorsFile f(dir / "model.safetensors");
            for (const auto& [name, t] : f.tensors()) {
                if (keep(name)) {
                    tensors.push_back(rawTensor(rename(name), t));
                }
            }
        }
        writeFile(dir / "model.safetensors", safetensorsBytes(tensors));
    }

    ScratchDir m_dir;
};

}  // namespace attnscope::testing
