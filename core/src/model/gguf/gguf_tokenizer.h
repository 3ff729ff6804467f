// The tokenizer of a GGUF file, from its tokenizer.ggml.* keys (tokenize/gguf_vocab.h says what
// is supported and how it follows llama.cpp). Internal to attnscope_core: the tokenizer library
// does not read GGUF itself.
#pragma once

#include <memory>

#include "attnscope/io/gguf.h"
#include "attnscope/tokenize/gguf_vocab.h"

namespace attnscope::model {

// The tokenizer keys as they are, for tokenize::loadGgufTokenizer. A value of the wrong type
// throws the GgufFile typed-read FormatError ("<file>: key '<key>': expected ..., found ...");
// missing keys are left empty for the loader to judge.
tokenize::GgufVocab readGgufVocab(const io::GgufFile& file);

// readGgufVocab, then tokenize::loadGgufTokenizer (FormatError / UnsupportedModel naming the
// file and the key).
std::unique_ptr<tokenize::Tokenizer> loadGgufTokenizer(const io::GgufFile& file);

}  // namespace attnscope::model
