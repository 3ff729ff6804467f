// What the model finders (model_discovery.h) share: listing a folder's GGUF files, the order
// of the lists, and the short form of an error for a list's tool tip. Internal to
// attnscope_core.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "attnscope/model/model_discovery.h"

namespace attnscope::model::gguf {

// The *.gguf files directly in `dir` (files or links to files), sorted; empty when `dir` cannot
// be read. The later parts of a split model (llama.cpp names them <name>-00002-of-00005.gguf)
// are left out: the first part stands for the model.
std::vector<std::filesystem::path> ggufFilesIn(const std::filesystem::path& dir);

// By name, then path.
void sortByName(std::vector<FoundModel>& found);

// An error's text without the leading "<file>: " its reader put there: the list already says
// which file it is about.
std::string withoutFile(const std::string& what, const std::filesystem::path& file);

}  // namespace attnscope::model::gguf
