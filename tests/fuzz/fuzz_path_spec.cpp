// Fuzzes the path grammar of attnscope-cli patch --path (analysis::parsePathSpec:
// "0-1,0-2->1-0:k", "2-3->logits"). An accepted path has senders, a q/k/v site when it has
// receivers, and its description reads back as the same path.
#include <cstdint>

#include "attnscope/analysis/activation_patching.h"
#include "fuzz_support.h"

using namespace attnscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto text = fuzz::asText(data, size);
    fuzz::expectErrors([&] {
        const analysis::PathSpec p = analysis::parsePathSpec(text);
        if (p.senders.empty()) {
            fuzz::fail("an accepted path has no sender");
        }
        std::string described = analysis::describe(p);
        described.resize(described.rfind(" ("));  // the direction is not part of the grammar
        const analysis::PathSpec again = analysis::parsePathSpec(described);
        if (again.senders != p.senders || again.receivers != p.receivers ||
            (!p.receivers.empty() && again.site != p.site)) {
            fuzz::fail("the description reads back as another path: " + described);
        }
    });
    return 0;
}
