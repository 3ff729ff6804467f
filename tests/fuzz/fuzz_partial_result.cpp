// Fuzzes the partial results of corpus jobs split into shards (issue 35), which `attnscope-cli
// merge` reads from other machines: the envelope (exporting::parsePartial), then every
// accumulator reader (deps, coref, positions, saturation) on its state whatever the command says,
// so each reader sees every state the mutations make. A state that reads back must write the same
// JSON again (nothing is dropped or invented), and merging the part with itself must refuse the
// duplicate shard.
#include <cstdint>
#include <string>
#include <vector>

#include "attnscope/analysis/partial_state.h"
#include "attnscope/export/partial_result.h"
#include "fuzz_support.h"

using namespace attnscope;

namespace {

void readStates(const exporting::PartialResult& part) {
    const io::JsonAt at = io::JsonAt{part.file}["state"];
    const analysis::PartialShape shape = part.shape();
    fuzz::expectErrors([&] {
        const auto acc = analysis::dependencyFromState(part.state, at, shape, {});
        (void)acc.relationTable(1);
        const auto again =
            analysis::dependencyFromState(analysis::dependencyState(acc), at, shape, {});
        if (analysis::dependencyState(again) != analysis::dependencyState(acc)) {
            fuzz::fail("dependency state does not read back the same");
        }
    });
    fuzz::expectErrors([&] {
        const auto acc = analysis::corefFromState(part.state, at, shape);
        for (int g = 0; g < analysis::kMentionGroups; ++g) {
            (void)acc.bestHead(static_cast<analysis::MentionGroup>(g));
        }
        if (analysis::corefState(analysis::corefFromState(analysis::corefState(acc), at, shape)) !=
            analysis::corefState(acc)) {
            fuzz::fail("coref state does not read back the same");
        }
    });
    // saturation keeps its pools under "as_is" and "changed".
    const nlohmann::json* pooled = io::optionalMember(part.state, "as_is");
    fuzz::expectErrors([&] {
        const auto acc = analysis::saturationFromState(pooled ? *pooled : part.state, at, shape);
        (void)acc.result();
        if (analysis::saturationState(analysis::saturationFromState(
                analysis::saturationState(acc), at, shape)) != analysis::saturationState(acc)) {
            fuzz::fail("saturation state does not read back the same");
        }
    });
    fuzz::expectErrors([&] {
        const auto positions = analysis::positionsFromState(part.state, at, shape, {});
        for (int layer = 0; layer < shape.layers; ++layer) {
            for (int head = 0; head < shape.heads; ++head) {
                const auto& h = positions.head({layer, head});
                (void)h.verdict();
                (void)h.offsets();
            }
        }
        if (analysis::positionsState(positions) !=
            analysis::positionsState(
                analysis::positionsFromState(analysis::positionsState(positions), at, shape, {}))) {
            fuzz::fail("positions state does not read back the same");
        }
    });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::expectErrors([&] {
        const exporting::PartialResult part =
            exporting::parsePartial(fuzz::asText(data, size), "fuzz.part.json");
        readStates(part);
        std::vector<exporting::PartialResult> twice = {part, part};
        bool refused = false;
        try {
            exporting::checkParts(twice);
        } catch (const InvalidArgument&) {
            refused = true;
        }
        if (!refused) {
            fuzz::fail("the same shard given twice was merged");
        }
    });
    return 0;
}
