// Results for the view tests and screenshots: real forward passes of the generated fixture
// checkpoints (FIXTURES checkpoints), and a synthetic result of any size (12x12 heads, 512
// tokens) whose maps have the usual head patterns, for scale tests that need no big model.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "attnscope/analysis/sentence_analysis.h"
#include "attnscope/forward/forward_pass.h"
#include "attnscope/model/model.h"

namespace attnscope::test {

// ATTNSCOPE_FIXTURE_DIR/checkpoints/<name>, e.g. "gpt2_f32" (causal) or "bert_f32".
std::shared_ptr<const model::Model> loadFixtureModel(const std::string& name);

std::shared_ptr<const analysis::SentenceAnalysis> analyze(const model::Model& model,
                                                          const std::vector<std::int32_t>& ids,
                                                          const forward::MaskChoice& mask = {});

// A model with only a spec (no weights): enough for AnalysisSession to clamp head ids.
std::shared_ptr<const model::Model> shapeOnlyModel(int nLayers, int nHeads);

// A causal result with the patterns real heads show (previous token, first-token sink, self,
// broad, local window), deterministic for a given seed. Token labels are English words.
std::shared_ptr<const analysis::SentenceAnalysis> syntheticAnalysis(int nLayers, int nHeads,
                                                                    int nTokens, unsigned seed = 1);

}  // namespace attnscope::test
