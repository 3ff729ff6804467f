#include "analyses/lens/lens_table.h"

#include "attnscope/export/csv_writer.h"
#include "attnscope/forward/prediction.h"

namespace attnscope::app {

std::string lensStageName(int stage) {
    if (stage == 0) {
        return "embed";
    }
    std::string name = "L";
    name += std::to_string(stage - 1);
    return name;
}

std::string lensStageLabel(int stage, int nStages) {
    return stage + 1 == nStages ? lensStageName(stage) + " · output" : lensStageName(stage);
}

void writeLensCsv(const std::string& path, const model::Model& m, const analysis::LogitLens& lens) {
    exporting::CsvWriter csv({"stage", "after", "position", "rank", "id", "token", "probability",
                              "target_id", "target_probability", "target_rank", "kl_from_final"});
    for (int s = 0; s < lens.nStages; ++s) {
        for (int p = 0; p < lens.nTokens; ++p) {
            const analysis::LensCell& c = lens.at(s, p);
            for (std::size_t k = 0; k < c.top.size(); ++k) {
                csv.addRow({std::int64_t{s}, lensStageName(s), std::int64_t{p},
                            static_cast<std::int64_t>(k + 1), std::int64_t{c.top[k].id},
                            forward::tokenPiece(m, c.top[k].id), c.top[k].probability,
                            std::int64_t{c.target}, c.targetProbability, std::int64_t{c.targetRank},
                            c.klFromFinal});
            }
        }
    }
    csv.writeFile(path);
}

}  // namespace attnscope::app
