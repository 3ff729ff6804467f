// Shared by the BERT and RoBERTa tables: they store the same tensor names and config keys.
#pragma once

#include <vector>

#include "attnscope/model/arch_table.h"

namespace attnscope::model::arch {

std::vector<TensorEntry> bertTensorEntries();

// hidden_size, num_attention_heads, ... as BertConfig spells them.
ModelSpec readBertConfig(const io::JsonFile& config);

extern const ArchTable kBert;
extern const ArchTable kElectra;
extern const ArchTable kRoberta;
extern const ArchTable kDistilBert;
extern const ArchTable kGpt2;
extern const ArchTable kLlama;
extern const ArchTable kMistral;
extern const ArchTable kQwen2;

}  // namespace attnscope::model::arch
