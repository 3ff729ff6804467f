#include "panels/welcome_page.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

#include "attnscope/model/arch_table.h"
#include "panels/local_models.h"
#include "session/default_model.h"
#include "widgets/named.h"

namespace attnscope::app {

namespace {

// The second line of a local model's entry, set in under its name.
const QString kDetailsIndent = QStringLiteral("    ");

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

}  // namespace

QString supportedModelTypes() {
    QStringList types;
    for (const model::ArchTable* table : model::archTables()) {
        types << QString::fromLatin1(table->modelType);
    }
    return types.join(QStringLiteral(", "));
}

WelcomePage::WelcomePage(QWidget* parent)
    : QWidget(parent),
      m_intro(named<QLabel>("welcomeIntro", this)),
      m_back(named<QPushButton>("welcomeBack", this)),
      m_list(named<QListWidget>("welcomeModels", this)) {
    setObjectName(QStringLiteral("welcomePage"));
    m_intro->setWordWrap(true);
    m_back->hide();
    // Long names lose their middle, never their end (a file's quantization), and the list never
    // scrolls sideways: the whole name is in the tool tip.
    m_list->setTextElideMode(Qt::ElideMiddle);
    m_list->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_list->setSpacing(2);
    auto* open = named<QPushButton>("welcomeOpen", tr("Open a folder…"), this);
    open->setToolTip(
        tr("A Hugging Face model folder: config.json, model.safetensors and the "
           "tokenizer files"));
    open->setDefault(true);
    auto* openFile = named<QPushButton>("welcomeOpenFile", tr("Open a GGUF file…"), this);
    openFile->setToolTip(tr("One .gguf file, as llama.cpp and Ollama use (Ollama's blobs too)"));
    auto* listTitle = new QLabel(tr("The shipped model, recent models and the models on this "
                                    "computer: the Hugging Face cache, llama.cpp's cache and "
                                    "Ollama (double-click to open):"),
                                 this);
    listTitle->setWordWrap(true);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(open);
    buttons->addWidget(openFile);
    buttons->addWidget(m_back);
    buttons->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(48, 32, 48, 32);
    layout->addWidget(m_intro);
    layout->addLayout(buttons);
    layout->addSpacing(16);
    layout->addWidget(listTitle);
    layout->addWidget(m_list, 1);
    connect(open, &QPushButton::clicked, this, &WelcomePage::openRequested);
    connect(openFile, &QPushButton::clicked, this, &WelcomePage::openFileRequested);
    connect(m_back, &QPushButton::clicked, this, &WelcomePage::backRequested);
    connect(m_list, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        if (item->flags() & Qt::ItemIsEnabled) {
            emit modelChosen(item->data(Qt::UserRole).toString());
        }
    });
    setOpenModel({});
}

void WelcomePage::setOpenModel(const QString& name) {
    m_back->setVisible(!name.isEmpty());
    m_back->setText(tr("Back to %1").arg(name));
    m_intro->setText(
        tr("<h2>%1</h2>"
           "<p>AttnScope runs a transformer on your sentence and shows every attention head: "
           "the model grid, one head in detail, the mask, entropy, and head-to-head "
           "comparisons.</p>"
           "<p>Open a Hugging Face model folder (config.json + model.safetensors + tokenizer "
           "files; without tokenizer files, type token ids) or a GGUF file (llama.cpp, "
           "Ollama). Model types it reads: %2.</p>")
            .arg(name.isEmpty() ? tr("No model open") : tr("Open a model"),
                 supportedModelTypes().toHtmlEscaped()));
}

QString WelcomePage::introText() const {
    return m_intro->text();
}

void WelcomePage::keyPressEvent(QKeyEvent* event) {
    if (event->key() == Qt::Key_Escape && m_back->isVisible()) {
        emit backRequested();
        return;
    }
    QWidget::keyPressEvent(event);
}

void WelcomePage::setModels(const QStringList& recent) {
    m_list->clear();
    const QString shipped = defaultModelDir();
    if (!shipped.isEmpty()) {
        // Short enough for the list at 1024 × 700 (the longer line ran under a scroll bar); the
        // rest goes to the tool tip.
        auto* item = new QListWidgetItem(tr("AttnScope's own small model (BERT-style)"), m_list);
        item->setData(Qt::UserRole, shipped);
        item->setToolTip(
            tr("A 4-layer masked LM trained by the project on English text\n%1").arg(shipped));
    }
    const QString circuits = circuitsModelDir();
    if (!circuits.isEmpty()) {
        auto* item = new QListWidgetItem(tr("AttnScope's circuits model (GPT-2-style)"), m_list);
        item->setData(Qt::UserRole, circuits);
        item->setToolTip(tr("A 2-layer causal LM trained by the project until a previous-token "
                            "head and an induction head formed (see its README.md)\n%1")
                             .arg(circuits));
    }
    const auto isShipped = [&](const QString& path) {
        const QString canonical = QFileInfo(path).canonicalFilePath();
        return (!shipped.isEmpty() && canonical == QFileInfo(shipped).canonicalFilePath()) ||
               (!circuits.isEmpty() && canonical == QFileInfo(circuits).canonicalFilePath());
    };
    for (const QString& path : recent) {
        if (isShipped(path)) {
            continue;  // listed once, as a shipped model
        }
        auto* item = new QListWidgetItem(tr("%1  (recent)").arg(recentModelLabel(path)), m_list);
        item->setData(Qt::UserRole, path);
        item->setToolTip(path);
    }
    const std::vector<model::FoundModel> found = findLocalModels();
    for (const model::FoundModel& m : found) {
        // Two lines: a GGUF file's name is often longer than the list is wide (the page shares
        // the window with the docks), and the details must not scroll out of sight with it.
        auto* item = new QListWidgetItem(
            qs(m.name) + QStringLiteral("\n") + kDetailsIndent + localModelDetails(m), m_list);
        item->setData(Qt::UserRole, QString::fromStdString(m.path.string()));
        item->setToolTip(localModelToolTip(m));
        if (!m.supported) {
            item->setFlags(item->flags() & ~Qt::ItemIsEnabled);
        }
    }
    if (found.empty()) {
        // Says where AttnScope looked, so a user whose models live elsewhere knows what to set.
        auto* item = new QListWidgetItem(noLocalModelsText(), m_list);
        item->setFlags(Qt::NoItemFlags);
        item->setToolTip(localModelPlacesText());
    }
}

}  // namespace attnscope::app
