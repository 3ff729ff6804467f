// Reads a list of sentences to step through: a .txt file (one sentence per line, blank lines
// skipped) or a CoNLL-U treebank (the `# text =` comment of each sentence, else its words
// joined by the FORM column honouring SpaceAfter=No). Multiword-token ranges give the surface
// form; empty nodes are skipped. Throws FormatError "<file>:<line>: <reason>" for invalid
// UTF-8 or a malformed token line; a missing file is "<file>: cannot open".
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace attnscope::text {

std::vector<std::string> readSentences(const std::filesystem::path& path);

// Whether readSentences (and the corpus readers built on it) take `path` for a treebank: its
// extension is ".conllu" or ".conll".
bool isTreebankPath(const std::filesystem::path& path);

}  // namespace attnscope::text
