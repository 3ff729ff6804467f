#include "panels/sentence_panel.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListView>
#include <QPushButton>
#include <QStringListModel>
#include <QVBoxLayout>

#include "attnscope/base/error.h"
#include "attnscope/text/sentence_file.h"
#include "session/analysis_session.h"
#include "widgets/named.h"

namespace attnscope::app {

SentencePanel::SentencePanel(AnalysisSession* session, QWidget* parent)
    : QWidget(parent),
      m_session(session),
      m_model(new QStringListModel(this)),
      m_list(named<QListView>("sentenceList", this)),
      m_source(new QLabel(tr("No sentence file loaded."), this)) {
    setObjectName(QStringLiteral("sentencePanel"));
    m_list->setModel(m_model);
    m_list->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_list->setUniformItemSizes(true);
    m_source->setForegroundRole(QPalette::PlaceholderText);
    auto* load = named<QPushButton>("loadSentences", tr("Load sentences…"), this);
    auto* prev = named<QPushButton>("previousSentence", tr("Previous"), this);
    auto* next = named<QPushButton>("nextSentence", tr("Next"), this);
    prev->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Up));
    next->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Down));
    prev->setToolTip(tr("Previous sentence (Alt+Up)"));
    next->setToolTip(tr("Next sentence (Alt+Down)"));
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(load);
    buttons->addStretch(1);
    buttons->addWidget(prev);
    buttons->addWidget(next);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(m_source);
    layout->addWidget(m_list, 1);
    connect(load, &QPushButton::clicked, this, &SentencePanel::askForFile);
    connect(prev, &QPushButton::clicked, this, [this] { step(-1); });
    connect(next, &QPushButton::clicked, this, [this] { step(1); });
    connect(m_list->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex& index) {
                if (index.isValid()) {
                    m_session->setText(index.data().toString());
                }
            });
}

void SentencePanel::askForFile() {
    auto* dialog = new QFileDialog(this, tr("Load sentences"), QString(),
                                   tr("Sentences (*.txt *.conllu *.conll);;All files (*)"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::ExistingFile);
    connect(dialog, &QFileDialog::fileSelected, this, &SentencePanel::loadFile);
    dialog->open();
}

bool SentencePanel::loadFile(const QString& path) {
    try {
        const auto sentences = text::readSentences(path.toStdString());
        QStringList list;
        for (const std::string& s : sentences) {
            list << QString::fromStdString(s);
        }
        showSentences(list, QFileInfo(path).fileName());
        if (!list.isEmpty()) {
            m_list->setCurrentIndex(m_model->index(0));
        }
        return true;
    } catch (const Error& e) {
        m_session->reportError(
            tr("Could not load sentences: %1").arg(QString::fromStdString(e.what())));
        return false;
    }
}

void SentencePanel::showSentences(const QStringList& sentences, const QString& source) {
    const QSignalBlocker block(m_list->selectionModel());
    m_model->setStringList(sentences);
    m_source->setText(
        tr("%n sentence(s) from %1", nullptr, static_cast<int>(sentences.size())).arg(source));
}

void SentencePanel::step(int delta) {
    const int rows = m_model->rowCount();
    if (rows == 0) {
        return;
    }
    const int row = std::clamp(m_list->currentIndex().row() + delta, 0, rows - 1);
    m_list->setCurrentIndex(m_model->index(row));
}

}  // namespace attnscope::app
