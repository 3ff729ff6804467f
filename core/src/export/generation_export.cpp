#include "attnscope/export/generation_export.h"

#include "attnscope/base/error.h"
#include "attnscope/export/csv_writer.h"
#include "hdf5_support.h"

namespace attnscope::exporting {

namespace fs = std::filesystem;
using forward::Generation;
using forward::GenerationStep;

namespace {

const Generation& checked(const fs::path& path, const GenerationRun& run) {
    if (run.generation == nullptr || run.pieces.size() != run.generation->steps.size()) {
        throw InvalidArgument(path.string() + ": a generation export without its steps");
    }
    return *run.generation;
}

}  // namespace

void writeGenerationCsv(const fs::path& path, const GenerationRun& run) {
    const Generation& g = checked(path, run);
    CsvWriter csv({"step", "token_id", "token", "probability", "layer", "head", "key", "weight"});
    for (std::size_t s = 0; s < g.steps.size(); ++s) {
        const GenerationStep& step = g.steps[s];
        std::size_t i = 0;
        for (int layer = 0; layer < g.nLayers; ++layer) {
            for (int head = 0; head < g.nHeads; ++head) {
                for (int key = 0; key < step.keys; ++key) {
                    csv.addRow({static_cast<std::int64_t>(s), std::int64_t{step.token},
                                run.pieces[s], step.probability, std::int64_t{layer},
                                std::int64_t{head}, std::int64_t{key}, step.rows[i++]});
                }
            }
        }
    }
    csv.writeFile(path);
}

void writeGenerationHdf5(const fs::path& path, const GenerationRun& run) {
    const Generation& g = checked(path, run);
    const auto steps = static_cast<hsize_t>(g.steps.size());
    const auto heads = static_cast<std::size_t>(g.nLayers) * static_cast<std::size_t>(g.nHeads);
    const std::size_t width = g.prompt.size() + g.steps.size() - (g.steps.empty() ? 0 : 1);
    std::vector<float> rows(g.steps.size() * heads * width, 0.0f);
    std::vector<float> entropy;
    std::vector<std::int64_t> generated, keys;
    std::vector<float> probability, sampled;
    for (std::size_t s = 0; s < g.steps.size(); ++s) {
        const GenerationStep& step = g.steps[s];
        const auto k = static_cast<std::size_t>(step.keys);
        for (std::size_t h = 0; h < heads; ++h) {
            std::copy_n(step.rows.begin() + static_cast<std::ptrdiff_t>(h * k), k,
                        rows.begin() + static_cast<std::ptrdiff_t>((s * heads + h) * width));
        }
        entropy.insert(entropy.end(), step.entropy.begin(), step.entropy.end());
        generated.push_back(step.token);
        keys.push_back(step.keys);
        probability.push_back(step.probability);
        sampled.push_back(step.sampledProbability);
    }
    const std::vector<std::int64_t> prompt(g.prompt.begin(), g.prompt.end());
    writeHdf5Atomically(path, [&](hid_t file) {
        const Writer w(file, path.string());
        const auto layers = static_cast<hsize_t>(g.nLayers);
        const auto perLayer = static_cast<hsize_t>(g.nHeads);
        w.dataset("prompt_ids", H5T_NATIVE_INT64, {prompt.size()}, prompt.data());
        w.dataset("generated", H5T_NATIVE_INT64, {steps}, generated.data());
        w.dataset("keys", H5T_NATIVE_INT64, {steps}, keys.data());
        w.dataset("probability", H5T_NATIVE_FLOAT, {steps}, probability.data());
        w.dataset("sampled_probability", H5T_NATIVE_FLOAT, {steps}, sampled.data());
        w.dataset("rows", H5T_NATIVE_FLOAT, {steps, layers, perLayer, width}, rows.data());
        w.dataset("entropy", H5T_NATIVE_FLOAT, {steps, layers, perLayer}, entropy.data());
        w.strings("tokens", run.pieces);
        w.runAttributes({{"model", run.model}, {"sampler", run.sampler}});
    });
}

}  // namespace attnscope::exporting
