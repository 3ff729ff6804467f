#include "analyses/registry.h"

namespace attnscope::app {

// Each defined in its folder (analyses/<name>/<name>_entry.cpp or its dock file).
Analysis compareAnalysis();
Analysis entropyAnalysis();
Analysis offsetsAnalysis();
Analysis attributionAnalysis();
Analysis alignmentAnalysis();
Analysis dependenciesAnalysis();
Analysis corefAnalysis();
Analysis importanceAnalysis();
Analysis surveyAnalysis();

const std::vector<Analysis>& registeredAnalyses() {
    static const std::vector<Analysis> all = {
        compareAnalysis(),     entropyAnalysis(),    offsetsAnalysis(),
        attributionAnalysis(), alignmentAnalysis(),  dependenciesAnalysis(),
        corefAnalysis(),       importanceAnalysis(), surveyAnalysis(),
    };
    return all;
}

}  // namespace attnscope::app
