#include "session/head_labels.h"

#include <QStringList>

namespace attnscope::app {

const std::vector<analysis::HeadLabel>& labelsOfHead(const LabelsByHead& byHead, int nLayers,
                                                     int nHeads, HeadId head) {
    static const std::vector<analysis::HeadLabel> none;
    if (head.layer < 0 || head.layer >= nLayers || head.head < 0 || head.head >= nHeads) {
        return none;
    }
    const auto k = static_cast<std::size_t>(head.layer * nHeads + head.head);
    return k < byHead.size() ? byHead[k] : none;
}

const LabelsByHead& HeadLabels::all() const {
    static const LabelsByHead none;
    return m_byHead ? *m_byHead : none;
}

QString labelTags(const std::vector<analysis::HeadLabel>& labels) {
    QStringList tags;
    for (const auto& l : labels) {
        tags << QString::fromStdString(l.tag);
    }
    return tags.join(QStringLiteral(", "));
}

QString labelTooltip(const std::vector<analysis::HeadLabel>& labels) {
    QStringList lines;
    for (const auto& l : labels) {
        lines << QStringLiteral("<b>%1</b> (%2): %3<br><i>%4</i>")
                     .arg(QString::fromStdString(l.name).toHtmlEscaped(),
                          QString::fromStdString(l.tag).toHtmlEscaped(),
                          QString::fromStdString(l.evidence).toHtmlEscaped(),
                          QString::fromStdString(l.rule).toHtmlEscaped());
    }
    return lines.join(QStringLiteral("<br>"));
}

}  // namespace attnscope::app
