#include "analyses/circuits/circuits_text.h"

#include <cmath>

#include <QObject>

namespace attnscope::app {

QString headName(HeadId head) {
    return QStringLiteral("%1-%2").arg(head.layer).arg(head.head);
}

QString scoreText(double value, bool sign) {
    if (std::isnan(value)) {
        return QStringLiteral("—");
    }
    return QString::asprintf(sign ? "%+.4f" : "%.4f", value);
}

QString copyingUndefined() {
    return QObject::tr(
        "not defined for this model: only a causal language model with a "
        "prediction head has one (a masked LM's head is nonlinear)");
}

QString positionalUndefined() {
    return QObject::tr(
        "not defined for this model: it needs learned position embeddings and "
        "a causal mask");
}

QString edgeToolTip(const analysis::WeightCircuits& w, const CompositionEdge& e) {
    return QObject::tr(
               "%1-composition %2 → %3: %4\nminus the baseline 1/√d_model %5: %6 "
               "(%7× the baseline)")
        .arg(kindLetter(e.kind), headName(headAt(w, e.writer)), headName(headAt(w, e.reader)),
             scoreText(e.score), scoreText(w.baseline), scoreText(e.score - w.baseline, true))
        .arg(e.score / w.baseline, 0, 'f', 2);
}

QString partnerText(const analysis::WeightCircuits& w, const CompositionEdge& e, bool reads) {
    return QStringLiteral("%1 %2  %3  %4 (%5)")
        .arg(reads ? QStringLiteral("←") : QStringLiteral("→"),
             headName(headAt(w, reads ? e.writer : e.reader)), kindLetter(e.kind),
             scoreText(e.score), scoreText(e.score - w.baseline, true));
}

QString nodeToolTip(const analysis::WeightCircuits& w, HeadId head) {
    const int flat = flatIndex(w, head);
    const analysis::HeadWeights& h = w.heads[static_cast<std::size_t>(flat)];
    QString text =
        QObject::tr("Head %1\ncopying %2 · positional %3\ntop QK σ %4 · top OV σ %5")
            .arg(headName(head), scoreText(h.copying, true), scoreText(h.positionalPrevious),
                 scoreText(h.qkSingular.empty() ? std::nan("") : h.qkSingular[0]),
                 scoreText(h.ovSingular.empty() ? std::nan("") : h.ovSingular[0]));
    for (const bool reads : {true, false}) {
        const auto top = strongestPartners(w, flat, reads, 1);
        if (!top.empty()) {
            text += QObject::tr("\nstrongest %1 %2")
                        .arg(reads ? QObject::tr("read:") : QObject::tr("write:"),
                             partnerText(w, top.front(), reads));
        }
    }
    return text + QObject::tr("\nClick to show its card");
}

}  // namespace attnscope::app
