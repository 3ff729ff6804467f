#include "analyses/series/series_document.h"

#include <QFileInfo>

#include "session/analysis_session.h"

namespace attnscope::app {

namespace {

bool samePath(const std::filesystem::path& a, const QString& b) {
    return !b.isEmpty() && QFileInfo(QString::fromStdString(a.string())).canonicalFilePath() ==
                               QFileInfo(b).canonicalFilePath();
}

}  // namespace

void SeriesDocument::setSeries(std::vector<analysis::SeriesCheckpoint> series) {
    m_series = std::move(series);
    m_stats.reset();
    emit seriesChanged();
    emit statisticsChanged();
}

void SeriesDocument::setStatistics(std::shared_ptr<const Statistics> stats) {
    if (stats && stats->byCheckpoint.size() != m_series.size()) {
        return;  // of a series replaced since
    }
    m_stats = std::move(stats);
    emit statisticsChanged();
}

int SeriesDocument::current() const {
    for (std::size_t k = 0; k < m_series.size(); ++k) {
        if (samePath(m_series[k].path, session().modelPath())) {
            return static_cast<int>(k);
        }
    }
    return -1;
}

bool SeriesDocument::dropModel() {
    if (m_series.empty() || current() >= 0) {
        return false;  // a step through the series keeps it
    }
    m_series.clear();
    m_stats.reset();
    return true;
}

}  // namespace attnscope::app
