// The manifest.json the reference scripts write beside their fixture checkpoints
// (make_checkpoints.py, make_seq2seq_checkpoints.py): one entry per case, named by "case".
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_names.h"

namespace attnscope::testing {

// The entries of `dir`/manifest.json; throws when the reference test that writes it has not run.
inline nlohmann::json readManifest(const std::filesystem::path& dir) {
    std::ifstream in(dir / "manifest.json");
    if (!in) {
        throw std::runtime_error("no manifest in " + dir.string() +
                                 ": run the reference test that writes the checkpoints first");
    }
    return nlohmann::json::parse(in);
}

// The entry of case `name`.
inline nlohmann::json manifestEntry(const std::filesystem::path& dir, const std::string& name) {
    for (const nlohmann::json& e : readManifest(dir)) {
        if (e.at("case") == name) {
            return e;
        }
    }
    throw std::runtime_error("case " + name + " is not in " + (dir / "manifest.json").string());
}

// The names in any order, sorted: a manifest's cases compared with a test's own list.
inline std::vector<std::string> sortedNames(std::vector<std::string> names) {
    std::sort(names.begin(), names.end());
    return names;
}

// The names of the cases the manifest lists, sorted.
inline std::vector<std::string> manifestCases(const std::filesystem::path& dir) {
    std::vector<std::string> out;
    for (const nlohmann::json& e : readManifest(dir)) {
        out.push_back(e.at("case").get<std::string>());
    }
    return sortedNames(std::move(out));
}

// The manifest of `dir` lists exactly `cases`, the test's own list, in any order: the two lists
// kept in step.
inline void expectManifestLists(const std::filesystem::path& dir,
                                const std::vector<std::string>& cases) {
    ASSERT_TRUE(std::filesystem::exists(dir / "manifest.json")) << "no manifest in " << dir;
    EXPECT_EQ(manifestCases(dir), sortedNames(cases));
}

}  // namespace attnscope::testing

// The parity suite `Suite` (a TestWithParam<std::string>) run once per case of `cases`, each run
// named after its case, and the test <Suite>Manifest.ManifestListsEveryCase: the manifest of
// `dir` lists exactly those cases, so that no case the reference writes goes untested.
#define ATTNSCOPE_MANIFEST_CASES(Suite, dir, cases)                          \
    INSTANTIATE_TEST_SUITE_P(Checkpoints, Suite, ::testing::ValuesIn(cases), \
                             ::attnscope::testing::paramName);               \
    TEST(Suite##Manifest, ManifestListsEveryCase) {                          \
        ::attnscope::testing::expectManifestLists(dir, cases);               \
    }
