// The Activation patching tab's path patching box (issue 34): a path in attnscope-cli patch
// --path's grammar ("0-1,0-2 -> 1-0:k", "0-1 -> logits"; analysis::parsePathSpec), checked as it
// is typed (the parser's message under the field), patched on Enter or "Patch path" in the tab's
// direction (analysis::pathPatch, on PathPatchingJob), and every path patched listed with its
// normalised metric and raw logit difference, newest first. GUI thread only.
#pragma once

#include <functional>
#include <optional>

#include <QGroupBox>

#include "analyses/patching/patching_job.h"

class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace attnscope::app {

class PatchingPathBox : public QGroupBox {
    Q_OBJECT

public:
    // `request` gives the tab's endpoints and direction, or nullopt (the tab says why).
    using RequestFn =
        std::function<std::optional<PatchingRequest>(analysis::PatchDirection* direction)>;

    PatchingPathBox(PatchingDocument& document, PathPatchingJob& job, RequestFn request,
                    QWidget* parent = nullptr);

    QLineEdit* field() const { return m_field; }

    QLabel* error() const { return m_error; }

    QTableWidget* results() const { return m_results; }

    // Patches the typed path; false (the error under the field, or the tab's reason) when it
    // does not parse or the endpoints cannot be asked for.
    bool patchPath();

private:
    // The typed path, parsed; nullopt with the parser's message shown.
    std::optional<analysis::PathSpec> parsed(analysis::PatchDirection direction);
    void showPaths();

    PatchingDocument& m_document;
    PathPatchingJob& m_job;
    RequestFn m_request;
    QLineEdit* m_field;
    QPushButton* m_patch;
    QLabel* m_error;
    QTableWidget* m_results;
};

}  // namespace attnscope::app
