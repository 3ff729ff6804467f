// The Generation tab's two drawn widgets. TokenChips: the prompt and the continuation as chips
// that wrap like text — prompt tokens plain, generated ones tinted with their probability under
// them, the current step's chosen token framed, tokens after it faded; a click on a generated
// chip steps there. RowStrip: the selected head's row at the current step (paintRowStrip); hover
// names a key and its weight, a click focuses the key (the heads' map shows every head's weight
// on it). GUI thread only.
#pragma once

#include <memory>
#include <vector>

#include <QRectF>
#include <QWidget>

#include "analyses/generation/generation_document.h"
#include "attnscope/base/head_id.h"

namespace attnscope::app {

class TokenChips : public QWidget {
    Q_OBJECT

public:
    explicit TokenChips(QWidget* parent = nullptr);

    void setRun(std::shared_ptr<const GenerationDocument::Run> run, int step);

    // The chip of token `index` (prompt first), in widget coordinates; empty when unknown.
    QRectF chipRect(int index) const;

    bool hasHeightForWidth() const override { return true; }

    int heightForWidth(int width) const override;
    QSize sizeHint() const override;

    QSize minimumSizeHint() const override { return {120, 40}; }

signals:
    void stepClicked(int step);
    // The height the chips need at the widget's width (after a new run or a resize).
    void heightWanted(int height);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    // The chips laid out at `width`; returns the height used.
    int layOut(int width, std::vector<QRectF>* rects) const;
    QString chipText(int index) const;

    std::shared_ptr<const GenerationDocument::Run> m_run;
    int m_step = 0;
    std::vector<QRectF> m_rects;
};

class RowStrip : public QWidget {
    Q_OBJECT

public:
    explicit RowStrip(QWidget* parent = nullptr);

    void setRow(std::shared_ptr<const GenerationDocument::Run> run, int step, HeadId head,
                int focusKey);

    // The key under x (widget coordinates), or -1.
    int keyAt(double x) const;

    QSize sizeHint() const override { return {360, 220}; }

    // Low enough that the tab fits a 1024 × 700 window with a dock open under it.
    QSize minimumSizeHint() const override { return {200, 80}; }

signals:
    void keyClicked(int key);

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    std::shared_ptr<const GenerationDocument::Run> m_run;
    int m_step = 0;
    HeadId m_head;
    int m_focus = 0;
};

}  // namespace attnscope::app
