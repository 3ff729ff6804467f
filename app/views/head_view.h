// One head, large: its heatmap with token labels, colour bar and hover details (exact weight,
// pre-softmax logit, masked or not). Arrow keys move between heads (Left/Right) and layers
// (Up/Down, PageUp/PageDown). With the custom mask chosen, clicking a cell forbids or allows it.
//
// Gold arcs: when the session's treebank holds the sentence (same surface text), the session
// has its gold tree aligned to the tokens (AnalysisSession::sentenceGold), and the (dependent,
// head) cells of the gold tree are outlined. At token level a word is represented by its FIRST
// token (the one Clark's "first" aggregation reads; words are aligned to tokens by byte spans,
// word_alignment.h), so each word w with gold head h > 0 outlines cell (first token of w, first
// token of h). The "Words" toggle shows the same head at word level instead: wordAttention(map,
// alignment, mean) over the alignment units ([CLS], words, [SEP]), with the gold arcs outlined at
// word level.
//
// Coreference arcs: when the text is a window of the session's coreference scores
// (AnalysisSession::windowGold), each gold arc (a scored mention's head word → one of its
// antecedents' head words) outlines cell (first token of the mention head, first token of the
// antecedent head) in orange, inside any white dependency outline; its tool tip names the arc.
// At word level they outline the unit cells; a window that is no treebank sentence shows its
// own words there (the window's words, with mean over a word's tokens).
//
// Ablation: right-click ablates the head or its key/value group (views/ablation_menu.h). A
// banner says when the shown head is ablated, or how much an ablation elsewhere changed its
// map (the JS change); the maps shown are the ablated pass's.
//
// Survey labels: when the session's corpus survey labelled the shown head, a line names its tags
// with their evidence; its tool tip gives the rules (issue 18).
//
// When the sentence's maps did not fit the memory budget, the head is recomputed on a worker:
// the view says "Computing head L·H…" until the session has it (head_record_watch.h).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <QColor>
#include <QWidget>

#include "attnscope/analysis/attribution.h"
#include "attnscope/analysis/dependency_score.h"
#include "attnscope/base/head_id.h"
#include "attnscope/forward/head_record.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QMenu;
class QSpinBox;

namespace attnscope::app {

class AnalysisSession;
class AttributionStatusLine;
class HeadRecordWatch;
class HeatmapWidget;
struct SentenceGold;
struct WindowGold;

class HeadView : public QWidget {
    Q_OBJECT

public:
    explicit HeadView(AnalysisSession* session, QWidget* parent = nullptr);

    HeatmapWidget* heatmap() const { return m_heatmap; }

    // Attribution maps (issue 19): the method selector, the progress line of a method being
    // computed, and the method whose map is on screen (the previous one stays while the chosen
    // one computes).
    QComboBox* methodCombo() const { return m_method; }

    QComboBox* kindCombo() const { return m_kind; }

    AttributionStatusLine* methodStatus() const { return m_methodStatus; }

    analysis::AttributionMethod shownMethod() const { return m_shownMethod; }

    bool hasGold() const { return m_gold != nullptr; }

    // Shows the head at word level (only while the sentence has a gold tree or is a scored
    // coreference window).
    void setWordLevel(bool on);
    bool wordLevel() const;

    // The outlined (row, col) cells of the gold arcs: token level or word level (unit indices).
    std::vector<std::pair<int, int>> goldCells(bool words) const;

    bool hasCoref() const { return m_coref != nullptr; }

    // The cells of the coreference arcs, in the window's arc order, as goldCells.
    std::vector<std::pair<int, int>> corefCells(bool words) const;

    static QColor corefColor();

    // The banner's text; empty while hidden (tests).
    QString ablationBanner() const;
    // The survey labels line; empty while hidden (tests).
    QString labelBanner() const;

    // The right-click menu for the shown head (views/ablation_menu.h).
    std::unique_ptr<QMenu> contextMenu();

protected:
    void changeEvent(QEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;

private:
    void wireSession();  // the session's signals this view follows

    // The words the "Words" mode shows: the sentence's dependency gold when there is one, else
    // the coreference window's words (a word without a token is in no unit and not shown).
    struct WordSource {
        const analysis::WordAlignment* alignment;
        const std::vector<std::string>* forms;
    };

    WordSource wordSource() const;  // only while m_gold or m_coref is set

    void refresh();
    // Draws the chosen method's map, or the one shown before while it computes; false when the
    // head's raw map is to be drawn (head_view_methods.cpp).
    bool refreshAttribution(const QStringList& tokens);
    void refreshAblationBanner();
    void refreshLabelBanner();
    void step(int dLayer, int dHead);
    // A click selects the query token (for predictions) or, with a custom mask, toggles the
    // cell in the mask.
    void onCellClicked(int row, int col);
    void toggleMaskCell(int row, int col);
    QString tooltip(int row, int col) const;
    QString wordTooltip(int row, int col) const;
    bool showingWords() const;
    void refreshWords();
    void refreshWordsBox(analysis::AttributionMethod method);
    void refreshGold();
    QString corefTooltip(int row, int col, bool words) const;

    AnalysisSession* m_session;
    QSpinBox* m_layer;
    QSpinBox* m_head;
    QLabel* m_info;
    QLabel* m_ablation;
    QLabel* m_labels;
    HeatmapWidget* m_heatmap;
    QCheckBox* m_words;
    bool m_wordsWanted = false;  // the box's tick while it is available (setWordLevel)
    HeadRecordWatch* m_records;
    std::shared_ptr<const SentenceGold> m_gold;  // of the current sentence, if any
    std::shared_ptr<const WindowGold> m_coref;   // of the current coreference window, if any
    // The shown head's maps (tooltips read them too); null while it is being recomputed.
    std::shared_ptr<const forward::HeadRecord> m_record;
    std::optional<Matrix> m_wordMap;  // m_record at word level, while shown
    QComboBox* m_method;
    QComboBox* m_kind;  // encoder-decoder models: the kind of attention shown
    AttributionStatusLine* m_methodStatus;
    analysis::AttributionMethod m_shownMethod = analysis::AttributionMethod::Raw;
    std::optional<Matrix> m_methodMap;  // the attribution map shown, for the tool tips
};

}  // namespace attnscope::app
