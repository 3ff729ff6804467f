// The architecture tables (one .cpp each in this folder), which arch_table.cpp lists, and the
// BERT pieces that BERT, ELECTRA and RoBERTa share: they store the same tensor names and read
// the same config keys. Private to the model library.
#pragma once

#include <vector>

#include "attnscope/model/arch_table.h"

namespace attnscope::model::arch {

std::vector<TensorEntry> bertTensorEntries();

// hidden_size, num_attention_heads, ... as BertConfig spells them.
ModelSpec readBertConfig(const io::JsonFile& config);

// Whether config.json's "architectures" lists only base models ("T5Model", "BartModel"), none
// with a task head ("...ForConditionalGeneration", "MarianMTModel"); false when it is absent.
bool namesOnlyBaseModel(const io::JsonFile& config);

// Defined in bert.cpp (BERT, ELECTRA), roberta.cpp, distilbert.cpp, gpt2.cpp and llama.cpp
// (Llama, Mistral, Qwen2).
extern const ArchTable kBert;
extern const ArchTable kElectra;
extern const ArchTable kRoberta;
extern const ArchTable kDistilBert;
extern const ArchTable kGpt2;
extern const ArchTable kLlama;
extern const ArchTable kMistral;
extern const ArchTable kQwen2;
// Encoder-decoder models (t5.cpp, bart.cpp): the encoder's tables, pointing to the decoder's.
extern const ArchTable kT5;
extern const ArchTable kBart;
extern const ArchTable kMBart;
extern const ArchTable kMarian;

}  // namespace attnscope::model::arch
