// What the window shows before any model is open: what AttnScope does, an "Open model…"
// button, recent models and the loadable models found in the local Hugging Face cache.
#pragma once

#include <QWidget>

class QListWidget;

#include <filesystem>

namespace attnscope::app {

// The Hugging Face hub cache folder this process would use ($HF_HUB_CACHE, $HF_HOME/hub, ...).
std::filesystem::path huggingFaceHubDir();

class WelcomePage : public QWidget {
    Q_OBJECT

public:
    explicit WelcomePage(QWidget* parent = nullptr);

    // Refills the list: recent folders first, then the Hugging Face cache's models.
    void setModels(const QStringList& recent);

signals:
    void openRequested();                   // the "Open model…" button
    void modelChosen(const QString& path);  // a listed model, double-clicked or Enter

private:
    QListWidget* m_list;
};

}  // namespace attnscope::app
