#include "panels/welcome_page.h"

#include <QDir>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

#include "attnscope/model/model_discovery.h"
#include "session/default_model.h"

namespace attnscope::app {

std::filesystem::path huggingFaceHubDir() {
    const auto env = [](const char* name) { return qEnvironmentVariable(name).toStdString(); };
    return model::huggingFaceHubDir(env("HF_HUB_CACHE"), env("HF_HOME"), env("XDG_CACHE_HOME"),
                                    QDir::homePath().toStdString());
}

WelcomePage::WelcomePage(QWidget* parent) : QWidget(parent), m_list(new QListWidget(this)) {
    setObjectName(QStringLiteral("welcomePage"));
    m_list->setObjectName(QStringLiteral("welcomeModels"));
    auto* title = new QLabel(tr("<h2>No model open</h2>"
                                "<p>AttnScope runs a transformer on your sentence and shows every "
                                "attention head: the model grid, one head in detail, the mask, "
                                "entropy, and head-to-head comparisons.</p>"
                                "<p>Open a Hugging Face model folder (config.json + "
                                "model.safetensors + tokenizer files) of a BERT, RoBERTa, "
                                "DistilBERT, ELECTRA or GPT-2 model.</p>"),
                             this);
    title->setWordWrap(true);
    auto* open = new QPushButton(tr("Open model…"), this);
    open->setObjectName(QStringLiteral("welcomeOpen"));
    open->setDefault(true);
    auto* listTitle = new QLabel(tr("Recent models and models in the Hugging Face cache "
                                    "(double-click to open):"),
                                 this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(48, 32, 48, 32);
    layout->addWidget(title);
    layout->addWidget(open, 0, Qt::AlignLeft);
    layout->addSpacing(16);
    layout->addWidget(listTitle);
    layout->addWidget(m_list, 1);
    connect(open, &QPushButton::clicked, this, &WelcomePage::openRequested);
    connect(m_list, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        if (item->flags() & Qt::ItemIsEnabled) {
            emit modelChosen(item->data(Qt::UserRole).toString());
        }
    });
}

void WelcomePage::setModels(const QStringList& recent) {
    m_list->clear();
    if (const QString shipped = defaultModelDir(); !shipped.isEmpty()) {
        auto* item = new QListWidgetItem(
            tr("AttnScope's own small model (BERT-style, trained by the project on English text)"),
            m_list);
        item->setData(Qt::UserRole, shipped);
        item->setToolTip(shipped);
    }
    for (const QString& path : recent) {
        auto* item = new QListWidgetItem(tr("%1  (recent)").arg(path), m_list);
        item->setData(Qt::UserRole, path);
    }
    const auto hub = huggingFaceHubDir();
    for (const model::FoundModel& m : model::findCachedModels(hub)) {
        auto* item = new QListWidgetItem(
            QStringLiteral("%1  (%2)")
                .arg(QString::fromStdString(m.name), QString::fromStdString(m.modelType)),
            m_list);
        item->setData(Qt::UserRole, QString::fromStdString(m.dir.string()));
        if (!m.supported) {
            item->setFlags(item->flags() & ~Qt::ItemIsEnabled);
            item->setToolTip(QString::fromStdString(m.note));
        }
    }
    if (m_list->count() == 0) {
        auto* item = new QListWidgetItem(
            tr("None found in %1").arg(QString::fromStdString(hub.string())), m_list);
        item->setFlags(Qt::NoItemFlags);
    }
}

}  // namespace attnscope::app
