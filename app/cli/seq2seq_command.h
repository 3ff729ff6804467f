// The encoder-decoder halves of attnscope-cli's commands (issue 20): what info, attention and
// predict do for T5, BART, mBART and Marian models. The commands themselves (commands.cpp,
// predict_command.cpp) call these when the loaded model is an encoder-decoder one, so one-stack
// models keep their output unchanged.
#pragma once

#include <string>

#include "attnscope/model/model.h"
#include "cli/commands.h"
#include "cli/predict_command.h"

namespace attnscope::cli {

// info: the encoder and decoder stacks, cross-attention, the decoder start and end tokens and
// both sides' tokenizers.
void printSeq2SeqInfo(const std::string& modelDir, const model::Model& m);

// attention: the source and target through the model, written as writeSeq2SeqInterchangeFile's
// three groups.
int runSeq2SeqAttention(const AttentionArgs& args, const model::Model& m);

// predict: the top-k next target tokens at each decoder row (or the --position ones).
int runSeq2SeqPredict(const PredictArgs& args, const model::Model& m);

}  // namespace attnscope::cli
