// A series of training checkpoints in the session (issue 33): the checkpoints (a folder of
// step<N> subfolders, or folders chosen in order), each one's per-head statistics on the token
// ids they were computed for (analysis/checkpoint_series.h), and which checkpoint the session
// has open. Opening one of the series' checkpoints keeps the series (stepping through it is the
// point); opening any other model drops it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <QString>

#include "attnscope/analysis/checkpoint_series.h"
#include "session/analysis_document.h"

namespace attnscope::app {

class SeriesDocument : public AnalysisDocument {
    Q_OBJECT

public:
    using AnalysisDocument::AnalysisDocument;

    struct Statistics {
        std::vector<std::int32_t> tokenIds;  // what every checkpoint ran
        std::vector<std::vector<analysis::HeadTrainingStats>> byCheckpoint;  // [k][layer·head]
        int nHeads = 0;
    };

    const std::vector<analysis::SeriesCheckpoint>& checkpoints() const { return m_series; }

    // Replaces the series; its statistics go.
    void setSeries(std::vector<analysis::SeriesCheckpoint> series);

    // Null until computed.
    std::shared_ptr<const Statistics> statistics() const { return m_stats; }

    void setStatistics(std::shared_ptr<const Statistics> stats);

    // The checkpoint the session has open; -1 when it is none of them.
    int current() const;

    bool dropModel() override;

    void announceDropped() override { emit seriesChanged(); }

signals:
    void seriesChanged();
    void statisticsChanged();

private:
    std::vector<analysis::SeriesCheckpoint> m_series;
    std::shared_ptr<const Statistics> m_stats;
};

}  // namespace attnscope::app
