// The start page: what the window shows before any model is open, and again from File ▸ Open
// model… (issue 30). What AttnScope does and which model families it reads (from the core's
// architecture tables), "Open a folder…" and "Open a GGUF file…" buttons, and a list of the
// shipped model, recent models and the models already on this computer (local_models.h: the
// Hugging Face cache, llama.cpp's cache, Ollama's store), those AttnScope cannot open greyed
// out with the reason as tool tip. With a model open, a button (or Escape) goes back to it.
#pragma once

#include <QWidget>

class QLabel;
class QListWidget;
class QPushButton;

namespace attnscope::app {

// The model_type values the core loads, in its order ("bert, roberta, …"), for the start page
// and its tests: model::archTables(), never a list kept here.
QString supportedModelTypes();

class WelcomePage : public QWidget {
    Q_OBJECT

public:
    explicit WelcomePage(QWidget* parent = nullptr);

    // Refills the list: the shipped model, recent models, then the models on this computer.
    void setModels(const QStringList& recent);

    // The open model's name, for the "Back to …" button; empty: no model is open (the button
    // hides and the heading says so).
    void setOpenModel(const QString& name);

    QString introText() const;

signals:
    void openRequested();                   // the "Open a folder…" button
    void openFileRequested();               // the "Open a GGUF file…" button
    void modelChosen(const QString& path);  // a listed model, double-clicked or Enter
    void backRequested();                   // back to the open model

protected:
    void keyPressEvent(QKeyEvent* event) override;

private:
    QLabel* m_intro;
    QPushButton* m_back;
    QListWidget* m_list;
};

}  // namespace attnscope::app
