// How the Circuits tab writes its numbers (issue 34): a head as the CLI names it ("1-2"), a score
// or "—" where the core has none (NaN), why a score is undefined, and the tool tips of the
// graph's nodes and edges. GUI thread only (translations).
#pragma once

#include <QString>

#include "analyses/circuits/circuits_graph.h"

namespace attnscope::app {

QString headName(HeadId head);

// Four decimals ("%+.4f" with `sign`); "—" for NaN.
QString scoreText(double value, bool sign = false);

// Why the core left a score NaN (weight_circuits.h).
QString copyingUndefined();
QString positionalUndefined();

// "K-composition 0-3 → 2-0: 0.2280" then its excess over the baseline and its ratio.
QString edgeToolTip(const analysis::WeightCircuits& w, const CompositionEdge& e);

// The head's scores and its strongest partner each way.
QString nodeToolTip(const analysis::WeightCircuits& w, HeadId head);

// One partner of a head's card: "← 0-3 K 0.2280 (+0.1655)" (reads) or "→ 2-0 …" (writes).
QString partnerText(const analysis::WeightCircuits& w, const CompositionEdge& e, bool reads);

}  // namespace attnscope::app
