// The "Offsets" tab: how the selected head's attention depends on relative position in the
// current sentence (issue 5). A caption gives Voita et al.'s verdict (methods.md §2.2: is the
// row maximum at one offset for at least 90 % of the queries?) with the confidence of §2.1;
// the chart below shows the mean attention at every offset (OffsetChart).
//
// Observes the session: a new result (new sentence, mask or scale) or another selected head
// recomputes the profile with the core's RelativePositionAccumulator, special tokens left out
// as queries, as the CLI's `positions` command does by default. When the head is being
// recomputed (maps over the memory budget), the placeholder says "Computing head L·H…" until
// the session has it. GUI thread only.
#pragma once

#include <optional>

#include <QWidget>

#include "attnscope/analysis/relative_position.h"
#include "attnscope/base/head_id.h"

class QLabel;

namespace attnscope::app {

class AnalysisSession;
class HeadRecordWatch;
class OffsetChart;
class PlaceholderStack;

class OffsetsView : public QWidget {
    Q_OBJECT

public:
    explicit OffsetsView(AnalysisSession* session, QWidget* parent = nullptr);

    OffsetChart* chart() const { return m_chart; }

    QLabel* caption() const { return m_caption; }

    // False while the empty-state placeholder is shown.
    bool hasResult() const;

    // The verdict the caption shows (queries == 0 without a result).
    const analysis::PositionalVerdict& verdict() const { return m_verdict; }

private:
    void refresh();
    void showPlaceholder(const QString& text);
    QString captionText(const analysis::RelativePositionAccumulator& acc) const;

    AnalysisSession* m_session;
    PlaceholderStack* m_stack;
    QLabel* m_caption;
    OffsetChart* m_chart;
    analysis::PositionalVerdict m_verdict;
    HeadRecordWatch* m_records;
};

}  // namespace attnscope::app
