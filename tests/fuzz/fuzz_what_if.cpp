// Fuzzes the what-if parser (forward::parseWhatIf: "qk-norm=off,softcap=2.5,scale=inv-sqrt-dk"
// from attnscope-cli saturation) with a head width from the input's first byte. An accepted
// setting must pass the pass's own check (a finite cap >= 0, a finite positive scale) and read
// back from its description with the same choices.
#include <cmath>
#include <cstdint>

#include "attnscope/forward/attention_what_if.h"
#include "fuzz_support.h"

using namespace attnscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) {
        return 0;
    }
    const int headDimK = 1 + data[0];
    const auto text = fuzz::asText(data + 1, size - 1);
    fuzz::expectErrors([&] {
        const forward::WhatIfSetting s = forward::parseWhatIf(text, headDimK);
        forward::checkWhatIf(s.attention);  // must not throw for what the parser accepted
        if (s.scale && !(std::isfinite(*s.scale) && *s.scale > 0.0f)) {
            fuzz::fail("an accepted scale is not a finite positive number");
        }
        const std::string described = forward::describe(s);
        if (described == "none") {
            if (!s.attention.isModel() || s.scale) {
                fuzz::fail("a what-if that changes something is described as none");
            }
            return;
        }
        const forward::WhatIfSetting again = forward::parseWhatIf(described, headDimK);
        if (again.attention.qkNorm != s.attention.qkNorm ||
            again.attention.softcap.has_value() != s.attention.softcap.has_value() ||
            again.scale.has_value() != s.scale.has_value()) {
            fuzz::fail("the description reads back as another what-if: " + described);
        }
    });
    return 0;
}
