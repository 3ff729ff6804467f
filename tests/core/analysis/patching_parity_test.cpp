// Activation and path patching (issue 34; methods.md §12.3): the identities that must hold bit for
// bit, and every sweep and path against the independent PyTorch reference
// (tests/reference/patching_reference.py: patching_1.safetensors beside each checkpoint).
#include <algorithm>
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "../support/expect_error.h"
#include "../support/reference_file.h"
#include "attnscope/analysis/activation_patching.h"
#include "attnscope/base/error.h"
#include "attnscope/forward/forward_pass.h"

namespace attnscope::analysis {
namespace {

namespace fs = std::filesystem;
using forward::ActivationPatch;
using forward::PatchSite;

const fs::path kCheckpoints = fs::path(ATTNSCOPE_FIXTURE_DIR) / "checkpoints";

const std::vector<std::string> kCases = {"gpt2_f32", "llama_gqa2_headdim_bf16",
                                         "gemma2_window_softcap_f32", "gptneox_parallel_f16",
                                         "bert_f32"};

struct Case {
    std::shared_ptr<const model::Model> model;
    std::unique_ptr<io::SafetensorsFile> file;
    PatchingBase base;

    const io::SafetensorsFile& ref() const { return *file; }

    const model::ModelSpec& spec() const { return model->spec; }
};

std::vector<std::int32_t> ids(const io::SafetensorsFile& f, const std::string& name) {
    const auto v = testing::int64s(f, name);
    return {v.begin(), v.end()};
}

Case load(const std::string& name) {
    const fs::path dir = kCheckpoints / name;
    Case c;
    c.model = model::loadModel(dir);
    c.file = std::make_unique<io::SafetensorsFile>(dir / "patching_1.safetensors");
    const auto& meta = c.ref().metadata();
    PatchingSetup s;
    s.clean = ids(c.ref(), "clean_ids");
    s.corrupted = ids(c.ref(), "corrupted_ids");
    s.target = std::stoi(meta.at("target"));
    s.distractor = std::stoi(meta.at("distractor"));
    s.position = std::stoi(meta.at("metric_position"));
    c.base = runPatchingBase(*c.model, s, {});
    return c;
}

double runLd(const Case& c, const forward::ForwardResult& recipient,
             std::vector<ActivationPatch> patches) {
    forward::ForwardOptions o;
    o.patches.items = std::move(patches);
    return logitDifference(
        *c.model, forward::runForwardFrom(*c.model, recipient, {recipient.tokenIds, {}}, o),
        c.base.setup);
}

class Patching : public ::testing::TestWithParam<std::string> {};

TEST_P(Patching, IdentitiesHoldBitForBit) {
    const Case c = load(GetParam());
    const auto& clean = c.base.clean;
    const auto& corrupted = c.base.corrupted;
    // A run's own activation patched into it changes nothing.
    EXPECT_EQ(runLd(c, *corrupted, {{PatchSite::HeadOutput, 0, 0, -1, corrupted}}),
              c.base.ldCorrupted);
    // Everything (the whole stream entering layer 0) gives exactly the other run: 1 and 0.
    const double all = runLd(c, *corrupted, {{PatchSite::Residual, 0, 0, -1, clean}});
    EXPECT_EQ(c.base.normalised(all), 1.0);
    EXPECT_EQ(c.base.normalised(runLd(c, *clean, {{PatchSite::Residual, 0, 0, -1, corrupted}})),
              0.0);
    // Every head of a layer at once equals that layer's attention output.
    const int last = c.spec().nLayers - 1;
    std::vector<ActivationPatch> heads;
    for (int h = 0; h < c.spec().nHeads; ++h) {
        heads.push_back({PatchSite::HeadOutput, last, h, -1, clean});
    }
    EXPECT_EQ(runLd(c, *corrupted, heads),
              runLd(c, *corrupted, {{PatchSite::AttnOut, last, 0, -1, clean}}));
    // A restarted patched run equals the full patched pass.
    forward::ForwardOptions o;
    o.patches.items = {{PatchSite::MlpOut, last, 0, 1, clean}};
    const auto full = forward::runForward(*c.model, {c.base.setup.corrupted, {}}, o);
    const auto from = forward::runForwardFrom(*c.model, *corrupted, {corrupted->tokenIds, {}}, o);
    EXPECT_EQ(full.hidden, from.hidden);
    // A path whose sender keeps its own (original) output changes nothing.
    PathSpec path{{{0, 0}}, {}, PatchSite::Query, PatchDirection::Noise};
    forward::ForwardOptions same;
    const PatchingBase self{c.base.setup, same, clean, clean, c.base.ldClean, c.base.ldCorrupted};
    EXPECT_EQ(pathPatch(*c.model, self, path).ld, c.base.ldClean);
}

// |ours - theirs| within 1e-4 of the run's logit scale, and the normalised metric within what
// that error becomes after dividing by LD_clean - LD_corrupted.
struct Tolerance {
    double ld;
    double metric;
};

Tolerance tolerance(const Case& c) {
    const double scale = std::max({1.0, std::abs(c.base.ldClean), std::abs(c.base.ldCorrupted)});
    const double span = std::abs(c.base.ldClean - c.base.ldCorrupted);
    return {1e-4 * scale, 1e-5 + 2e-4 * scale / span};
}

void expectGrid(const std::string& which, const Case& c, const PatchingGrid& g,
                const std::string& name) {
    const auto ld = testing::floats(c.ref(), name + "_ld");
    const auto metric = testing::floats(c.ref(), name);
    ASSERT_EQ(ld.size(), g.ld.size()) << name;
    const Tolerance tol = tolerance(c);
    for (std::size_t i = 0; i < g.ld.size(); ++i) {
        EXPECT_NEAR(g.ld[i], ld[i], tol.ld) << which << " " << name << " [" << i << "]";
        EXPECT_NEAR(g.metric[i], metric[i], tol.metric) << name << " [" << i << "]";
    }
}

TEST_P(Patching, SweepsMatchTheReference) {
    const Case c = load(GetParam());
    const auto ends = testing::floats(c.ref(), "ld");
    const Tolerance tol = tolerance(c);
    EXPECT_NEAR(c.base.ldClean, ends[0], tol.ld);
    EXPECT_NEAR(c.base.ldCorrupted, ends[1], tol.ld);
    for (const PatchDirection d : {PatchDirection::Denoise, PatchDirection::Noise}) {
        for (const PatchSweep s : {PatchSweep::Head, PatchSweep::HeadPosition, PatchSweep::Residual,
                                   PatchSweep::AttnOut, PatchSweep::MlpOut}) {
            std::string name = sweepName(s);
            std::replace(name.begin(), name.end(), '-', '_');
            if (name == "head_position") {
                name = "head_pos";
            }
            expectGrid(GetParam(), c, patchSweep(*c.model, c.base, s, d),
                       directionName(d) + "_" + name);
        }
    }
}

TEST_P(Patching, PathsMatchTheReference) {
    const Case c = load(GetParam());
    const model::ModelSpec& spec = c.spec();
    const int heads = spec.nLayers * spec.nHeads;
    const Tolerance tol = tolerance(c);
    const auto head = [&](int i) { return HeadId{i / spec.nHeads, i % spec.nHeads}; };
    for (const auto& [site, name] :
         {std::pair{PatchSite::Query, "q"}, {PatchSite::Key, "k"}, {PatchSite::Value, "v"}}) {
        const auto ld = testing::floats(c.ref(), std::string("path_") + name + "_ld");
        const auto later = testing::floats(c.ref(), std::string("path_") + name + "_later_ld");
        for (int s = 0; s < heads; ++s) {
            std::vector<HeadId> all;
            for (int r = 0; r < heads; ++r) {
                if (head(r).layer <= head(s).layer) {
                    continue;
                }
                all.push_back(head(r));
                const PathSpec one{{head(s)}, {head(r)}, site, PatchDirection::Noise};
                EXPECT_NEAR(pathPatch(*c.model, c.base, one).ld, ld[s * heads + r], tol.ld)
                    << GetParam() << " " << describe(one);
            }
            if (!all.empty()) {
                const PathSpec many{{head(s)}, all, site, PatchDirection::Noise};
                EXPECT_NEAR(pathPatch(*c.model, c.base, many).ld, later[s], tol.ld)
                    << GetParam() << " " << describe(many);
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Reference, Patching, ::testing::ValuesIn(kCases),
                         [](const auto& param) { return param.param; });

TEST(PathSpecText, ParsesAndNamesEachMistake) {
    const PathSpec p = parsePathSpec(" 0-1, 0-2 -> 1-0,1-3 : k ");
    EXPECT_EQ(p.senders, (std::vector<HeadId>{{0, 1}, {0, 2}}));
    EXPECT_EQ(p.receivers, (std::vector<HeadId>{{1, 0}, {1, 3}}));
    EXPECT_EQ(p.site, PatchSite::Key);
    EXPECT_EQ(describe(p), "0-1,0-2->1-0,1-3:k (noise)");
    EXPECT_TRUE(parsePathSpec("2-3->logits").receivers.empty());
    const std::pair<std::string, std::string> mistakes[] = {
        {"0-1", "path '0-1': expected SENDERS->RECEIVERS:q|k|v or SENDERS->logits"},
        {"->1-0:q", "path '->1-0:q': no sender heads"},
        {"0-1->1-0", "path '0-1->1-0': the receivers need a site: append :q, :k or :v"},
        {"0-1->1-0:z", "path '0-1->1-0:z': the receivers' site must be q, k or v"},
        {"0-1->:q", "path '0-1->:q': no receiver heads"},
        {"0-x->1-0:q",
         "path '0-x->1-0:q': sender: '0-x' is not LAYER-HEAD (0-based numbers, "
         "e.g. 3-7)"},
        {std::string(60, '7'), "path '" + std::string(40, '7') +
                                   "...': expected SENDERS->RECEIVERS:q|k|v or SENDERS->logits"},
    };
    for (const auto& [text, message] : mistakes) {
        EXPECT_EQ(testing::errorMessage<InvalidArgument>([&] { parsePathSpec(text); }), message);
    }
}

}  // namespace
}  // namespace attnscope::analysis
