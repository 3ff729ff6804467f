// The Circuits tab's card of one head (issue 34): the top singular values of its W_QK and W_OV
// (a bar chart, the two spectra side by side), its OV copying score and positional
// previous-token score — or why the core has none for this model — and its strongest
// composition partners each way. All numbers are the core's (analysis::WeightCircuits).
// GUI thread only.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include <QWidget>

#include "analyses/circuits/circuits_document.h"
#include "attnscope/base/head_id.h"

class QLabel;

namespace attnscope::app {

class SpectrumChart;

class HeadCard : public QWidget {
    Q_OBJECT

public:
    explicit HeadCard(QWidget* parent = nullptr);

    // How many singular values of each the chart shows at most.
    static constexpr int kSpectrum = 8;

    // Null run or no head: an empty card that says to pick one.
    void showHead(std::shared_ptr<const CircuitsDocument::Run> run, std::optional<HeadId> head);

    std::optional<HeadId> head() const { return m_head; }

    // The bars shown: the QK (0) or OV (1) singular values, largest first.
    std::vector<double> bars(int set) const;

    QLabel* scores() const { return m_scores; }

    QLabel* partners() const { return m_partners; }

private:
    QLabel* m_title;
    SpectrumChart* m_chart;
    QLabel* m_scores;
    QLabel* m_partners;
    std::optional<HeadId> m_head;
};

}  // namespace attnscope::app
