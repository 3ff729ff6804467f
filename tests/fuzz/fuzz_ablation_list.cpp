// Fuzzes the ablation-list parser (forward::parseAblationList: "3-7,5-g1" from the command line
// and the app) and the range checks after it (forward::resolveAblations) on a model shape taken
// from the input's first bytes. A list that resolves must name exactly the heads it claims.
#include <cstdint>
#include <memory>

#include "attnscope/forward/interventions.h"
#include "fuzz_support.h"

using namespace attnscope;

namespace {

struct Shape {
    int layers = 1;
    int heads = 1;
    int kvHeads = 0;  // 0: no grouped-query attention
    int headDimV = 1;
};

Shape shapeOf(const std::uint8_t* data) {
    Shape s;
    s.layers = 1 + data[0] % 8;
    s.heads = 1 + data[1] % 16;
    const int kv = data[2] % (s.heads + 1);  // 0, or a divisor of heads when one fits
    s.kvHeads = kv > 0 && s.heads % kv == 0 ? kv : 0;
    s.headDimV = 1 + data[3] % 4;
    return s;
}

void checkResolved(const forward::Interventions& iv, const Shape& s,
                   const std::vector<std::optional<forward::AblationKind>>& resolved) {
    if (resolved.size() != static_cast<std::size_t>(s.layers * s.heads)) {
        fuzz::fail("resolveAblations returned a list of the wrong size");
    }
    const int group = s.kvHeads > 0 ? s.heads / s.kvHeads : 1;
    std::size_t ablatedHeads = 0;
    for (const auto& k : resolved) {
        ablatedHeads += k.has_value() ? 1 : 0;
    }
    std::size_t named = 0;
    for (const forward::HeadAblation& a : iv.ablations) {
        named += a.kvGroup ? static_cast<std::size_t>(group) : 1;
        const int head = a.kvGroup ? a.target * group : a.target;
        if (!resolved[static_cast<std::size_t>(a.layer * s.heads + head)]) {
            fuzz::fail("an accepted ablation left its head clean: " + forward::describe(a));
        }
    }
    if (named != ablatedHeads) {
        fuzz::fail("resolved heads differ from the heads the list names");
    }
    const int first = forward::firstAblatedLayer(resolved, s.layers, s.heads);
    for (const forward::HeadAblation& a : iv.ablations) {
        if (a.layer < first) {
            fuzz::fail("firstAblatedLayer is above an ablated layer");
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 5) {
        return 0;
    }
    const Shape s = shapeOf(data);
    const auto kind = static_cast<forward::AblationKind>(data[4] % 3);
    const auto text = fuzz::asText(data + 5, size - 5);
    fuzz::expectErrors([&] {
        forward::Interventions iv;
        iv.ablations = forward::parseAblationList(text, kind);
        if (kind == forward::AblationKind::Mean) {
            auto means = std::make_shared<forward::HeadMeans>();
            means->nLayers = s.layers;
            means->nHeads = s.heads;
            means->headDimV = s.headDimV;
            means->values.assign(static_cast<std::size_t>(s.layers * s.heads * s.headDimV), 0.5f);
            iv.means = means;
        }
        checkResolved(iv, s,
                      forward::resolveAblations(iv, s.layers, s.heads, s.kvHeads, s.headDimV));
    });
    return 0;
}
