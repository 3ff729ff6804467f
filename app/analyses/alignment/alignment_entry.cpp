// The Alignment tab (issue 20): an encoder-decoder model's cross-attention as a word alignment,
// of the head selected while the views show cross-attention.
#include <QTabWidget>

#include "analyses/alignment/alignment_view.h"
#include "analyses/registry.h"
#include "session/analysis_session.h"

namespace attnscope::app {

Analysis alignmentAnalysis() {
    return {
        "alignment",
        [](const AnalysisHost& host) {
            auto* alignment = new AlignmentView(host.tabs);
            host.tabs->addTab(alignment, QObject::tr("Alignment"));
            AnalysisSession* session = host.session;
            QObject::connect(session, &AnalysisSession::resultChanged, alignment,
                             [session, alignment] { alignment->setAnalysis(session->seq2seq()); });
            QObject::connect(session, &AnalysisSession::selectedHeadChanged, alignment,
                             [session, alignment](HeadId h) {
                                 if (session->attentionKind() == forward::AttentionKind::Cross) {
                                     alignment->setHead(h.layer, h.head);
                                 }
                             });
        },
        nullptr};
}

}  // namespace attnscope::app
