// The model AttnScope ships (resources/default_model, issue 7), loaded through the ordinary
// loader: its shape and tokenizer, and that its weights really learned English — masking each
// word of a few sentences written for this test (so not in its training text), the true token
// gets far more probability than chance and often lands in the top five.
#include <cmath>

#include <gtest/gtest.h>

#include "attnscope/analysis/sentence_analysis.h"
#include "attnscope/forward/prediction.h"
#include "attnscope/model/model.h"

namespace attnscope::model {
namespace {

const std::filesystem::path kDefaultModel =
    std::filesystem::path(ATTNSCOPE_SOURCE_DIR) / "resources" / "default_model";

TEST(DefaultModel, LoadsAsAMaskedLmWithItsTokenizer) {
    const auto m = loadModel(kDefaultModel);
    EXPECT_EQ(m->spec.modelType, "bert");
    EXPECT_EQ(m->spec.prediction, PredictionKind::MaskedLm);
    EXPECT_EQ(m->storedDtypes, "F16");
    ASSERT_NE(m->tokenizer, nullptr);
    EXPECT_EQ(m->tokenizer->kind(), tokenize::TokenizerKind::WordPiece);
    EXPECT_TRUE(m->warnings.empty()) << m->warnings.front();
    EXPECT_LE(std::filesystem::file_size(kDefaultModel / "model.safetensors"), 20u << 20);
}

TEST(DefaultModel, PredictsMaskedWordsFarBetterThanChance) {
    const auto m = loadModel(kDefaultModel);
    const auto mask = m->tokenizer->specialId(tokenize::SpecialRole::Mask);
    ASSERT_TRUE(mask.has_value());
    const std::vector<std::string> sentences = {
        "The children walked home from school in the rain.",
        "She opened the window and looked at the garden.",
        "He said that the king would come back in the morning.",
        "We must be careful when we write to the people of the city.",
        "There was a great noise in the house, and the men ran out.",
        "The old man sat by the fire and told a long story.",
    };
    double logProb = 0.0;
    int masked = 0;
    int inTopFive = 0;
    for (const std::string& s : sentences) {
        const auto tokens = m->tokenizer->encode(s);
        for (std::size_t i = 1; i + 1 < tokens.size(); ++i) {
            std::vector<std::int32_t> ids = tokenize::ids(tokens);
            const std::int32_t truth = ids[i];
            ids[i] = *mask;
            const auto a = analysis::analyzeIds(*m, ids, {});
            const Matrix logits =
                forward::vocabularyLogits(*m, a.forward.hidden.row(static_cast<Eigen::Index>(i)));
            const float top = logits.maxCoeff();
            const double logSum = top + std::log((logits.array() - top).exp().cast<double>().sum());
            logProb += logits(0, truth) - logSum;
            const auto best = forward::topPredictions(*m, a.forward, static_cast<int>(i), 5);
            for (const auto& p : best) {
                inTopFive += p.id == truth ? 1 : 0;
            }
            ++masked;
        }
    }
    const double chanceLogProb = -std::log(static_cast<double>(m->spec.vocabSize));
    const double meanLogProb = logProb / masked;
    const double topFiveRate = static_cast<double>(inTopFive) / masked;
    std::cout << masked << " masked tokens: mean log p " << meanLogProb << " (chance "
              << chanceLogProb << "), top-5 " << topFiveRate << " (chance "
              << 5.0 / m->spec.vocabSize << ")\n";
    // The shipped weights give e^5.2 ~ 180 times the uniform probability and 51 % top-5 hits
    // (5/8000 by chance); the bounds leave room for a retrained model of the same quality
    // (the 2000-step model before it reached e^3.3 and 30 %, and fails them).
    EXPECT_GT(meanLogProb, chanceLogProb + 4.0);
    EXPECT_GT(topFiveRate, 0.35);
}

}  // namespace
}  // namespace attnscope::model
