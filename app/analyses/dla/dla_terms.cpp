#include "analyses/dla/dla_terms.h"

#include "attnscope/export/csv_writer.h"

namespace attnscope::app {

std::string dlaKindName(analysis::DlaTermKind kind) {
    switch (kind) {
        case analysis::DlaTermKind::Embedding:
            return "embedding";
        case analysis::DlaTermKind::Positions:
            return "positions";
        case analysis::DlaTermKind::Head:
            return "head";
        case analysis::DlaTermKind::OutputBias:
            return "output bias";
        case analysis::DlaTermKind::Mlp:
            return "mlp";
        case analysis::DlaTermKind::FinalNormBias:
            return "final norm bias";
        case analysis::DlaTermKind::UnembedBias:
            break;
    }
    return "unembedding bias";
}

void writeDlaCsv(const std::string& path, const analysis::LogitAttribution& a) {
    exporting::CsvWriter csv({"term", "kind", "layer", "head", "value"});
    const auto index = [](int v) {
        return v < 0 ? exporting::CsvValue(std::string()) : exporting::CsvValue(std::int64_t{v});
    };
    for (const analysis::DlaTerm& t : a.terms) {
        csv.addRow({t.name(), dlaKindName(t.kind), index(t.layer), index(t.head), t.value});
    }
    csv.writeFile(path);
}

}  // namespace attnscope::app
