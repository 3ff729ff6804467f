// Fuzzes config.json as every architecture reads it. The input is the file. It is parsed once
// (io::JsonFile) and handed to every architecture's readConfig (BERT, RoBERTa, DistilBERT,
// ELECTRA, GPT-2, Llama, Mistral, Qwen2, Gemma 1/2/3, Qwen3, OLMo-2, Phi-3, GPT-NeoX, and the
// encoder and decoder of T5, BART, mBART and Marian), whatever its model_type says, then checked
// with checkSpec as the loader does. Then model::loadModel opens the folder as a user would (its
// model_type picks the architecture; with no weights it must stop with a FormatError after the
// config), and model::findCachedModels lists it from a Hugging Face cache layout (documented
// never to throw for a broken entry, so no error is swallowed there).
#include <cstdint>
#include <string>

#include "attnscope/io/json_file.h"
#include "attnscope/model/arch_table.h"
#include "attnscope/model/model.h"
#include "attnscope/model/model_discovery.h"
#include "attnscope/model/model_spec.h"
#include "fuzz_support.h"

namespace {

using namespace attnscope;

// RoPE tables are built per forward pass from the spec; bigger ones need a checkpoint to match.
constexpr int kMaxRopeDims = 1 << 16;

void useSpec(model::ModelSpec spec, const std::string& file) {
    if (spec.nKvHeads == 0) {
        spec.nKvHeads = spec.nHeads;  // as loadModel does
    }
    model::checkSpec(spec, file);
    (void)spec.maxTokens();
    (void)spec.defaultScale(0);
    (void)spec.defaultScale(spec.nLayers - 1);
    const int kv = spec.kvHeadOf(spec.nHeads - 1);
    if (kv < 0 || kv >= spec.nKvHeads) {
        fuzz::fail(file + ": kvHeadOf(" + std::to_string(spec.nHeads - 1) +
                   ") = " + std::to_string(kv) + " with " + std::to_string(spec.nKvHeads) +
                   " key/value heads");
    }
    (void)model::activationName(spec.activation);
    (void)model::normPlacementName(spec.normPlacement);
    (void)spec.mixedWindows();
    // The later decoders' per-layer settings (issue 33): window and rope of the first and last
    // layer, LongRoPE's short and long factors.
    for (const int layer : {0, spec.nLayers - 1}) {
        (void)spec.windowed(layer);
        const model::RopeSpec& rope = spec.ropeOf(layer);
        if (rope.dims <= kMaxRopeDims) {
            (void)rope.inverseFrequencies();
            (void)rope.inverseFrequencies(1 << 30);
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const auto hub = fuzz::scratchDir("config/hub");
    static const auto dir = fuzz::scratchDir("config/hub/models--fuzz--model/snapshots/main");
    const auto path = fuzz::writeFile(dir, "config.json", fuzz::asText(data, size));
    fuzz::expectErrors([&] {
        const io::JsonFile config(path);
        for (const model::ArchTable* table : model::archTables()) {
            fuzz::expectErrors([&] { useSpec(table->readConfig(config), config.fileName()); });
            if (table->decoder != nullptr) {
                fuzz::expectErrors(
                    [&] { useSpec(table->decoder->readConfig(config), config.fileName()); });
            }
        }
        (void)model::archTableFor(config.string("model_type", ""), config.fileName());
    });
    fuzz::expectErrors([&] {
        (void)model::loadModel(dir);
        fuzz::fail("loadModel succeeded on a folder without weights");
    });
    for (const model::FoundModel& found : model::findCachedModels(hub)) {
        if (found.supported) {
            fuzz::fail("findCachedModels: " + found.name + " supported without weights");
        }
    }
    return 0;
}
