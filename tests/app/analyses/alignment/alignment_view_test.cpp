// AlignmentView against analysis::crossAlignment on hand-built encoder-decoder analyses (as
// tests/core/analysis/seq2seq_analysis_test.cpp builds them): the cells are the core's word
// weights for one head and for the mean, the headers are the words, the selectors change what
// is shown, the empty states say what is missing, a click emits the picked pair, exports write
// the same numbers, and 5 to 40 words per side lay out at 1024×700 and 1920×1080. Issue 20.
#include "analyses/alignment/alignment_view.h"

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "analyses/alignment/alignment_grid.h"

using namespace attnscope;
using attnscope::app::AlignmentGrid;
using attnscope::app::AlignmentView;

namespace {

// One word: its tokens' pieces ("ab" as {"a", "b"} is one word of two tokens).
using Word = std::vector<std::string>;

tokenize::Token token(const std::string& text, std::size_t begin, std::size_t end, bool special) {
    return {.text = text, .byteBegin = begin, .byteEnd = end, .special = special};
}

// The words joined by spaces, one token per piece, and an end-of-sequence special token.
std::pair<std::string, std::vector<tokenize::Token>> side(const std::vector<Word>& words) {
    std::string text;
    std::vector<tokenize::Token> tokens;
    for (const Word& w : words) {
        if (!text.empty()) {
            text += ' ';
        }
        for (const std::string& piece : w) {
            tokens.push_back(token(piece, text.size(), text.size() + piece.size(), false));
            text += piece;
        }
    }
    tokens.push_back(token("</s>", 0, 0, true));
    return {text, tokens};
}

// Random attention rows (each a softmax, fixed seed) for every layer and head.
std::shared_ptr<analysis::Seq2SeqAnalysis> makeAnalysis(const std::vector<Word>& target,
                                                        const std::vector<Word>& source,
                                                        int nLayers, int nHeads) {
    auto a = std::make_shared<analysis::Seq2SeqAnalysis>();
    std::tie(a->targetText, a->targetTokens) = side(target);
    std::tie(a->cross.keyText, a->cross.keyTokens) = side(source);
    forward::ForwardResult& r = a->cross.forward;
    r.nLayers = nLayers;
    r.nHeads = nHeads;
    r.nTokens = static_cast<int>(a->targetTokens.size());
    r.nKeys = static_cast<int>(a->cross.keyTokens.size());
    r.probs.resize(static_cast<std::size_t>(nLayers * nHeads * r.nTokens * r.nKeys));
    std::mt19937 rng(7);
    std::exponential_distribution<float> draw(1.0f);
    for (std::size_t row = 0; row < r.probs.size(); row += static_cast<std::size_t>(r.nKeys)) {
        float sum = 0;
        for (int k = 0; k < r.nKeys; ++k) {
            const float v = std::pow(draw(rng), 3.0f);  // peaked, like real heads
            r.probs[row + static_cast<std::size_t>(k)] = v;
            sum += v;
        }
        for (int k = 0; k < r.nKeys; ++k) {
            r.probs[row + static_cast<std::size_t>(k)] /= sum;
        }
    }
    return a;
}

std::shared_ptr<analysis::Seq2SeqAnalysis> smallAnalysis() {
    return makeAnalysis({{"Die"}, {"Schlüs", "sel"}, {"liegen", "."}},
                        {{"The"}, {"ke", "ys"}, {"are"}, {"there", "."}}, 2, 3);
}

std::vector<Word> numberedWords(int n, const char* stem) {
    std::vector<Word> words;
    for (int i = 0; i < n; ++i) {
        words.push_back({std::string(stem) + std::to_string(i)});
    }
    return words;
}

QStringList words(const std::vector<std::string>& w) {
    QStringList out;
    for (const std::string& s : w) {
        out << QString::fromStdString(s);
    }
    return out;
}

// The grid's cells, headers and outlines are exactly the core's alignment.
void expectShows(const AlignmentView& view, const analysis::CrossAlignment& want) {
    const app::AlignmentCells& cells = view.grid()->cells();
    QCOMPARE(cells.targets, words(want.targetWords));
    QCOMPARE(cells.sources, words(want.sourceWords));
    QCOMPARE(cells.weights.rows(), want.weights.rows());
    QCOMPARE(cells.weights.cols(), want.weights.cols());
    QVERIFY2(cells.weights == want.weights, "cells differ from crossAlignment's weights");
    for (Eigen::Index r = 0; r < want.weights.rows(); ++r) {
        Eigen::Index best = 0;
        want.weights.row(r).maxCoeff(&best);
        QCOMPARE(cells.best[static_cast<std::size_t>(r)], static_cast<int>(best));
    }
}

}  // namespace

class AlignmentViewTest : public QObject {
    Q_OBJECT

private slots:

    void cellsAreTheCoreAlignmentForAHeadAndForTheMean() {
        AlignmentView view;
        const auto a = smallAnalysis();
        view.setAnalysis(a);
        view.setHead(0, 2);
        QCOMPARE(view.layer(), 0);
        QCOMPARE(view.head(), 2);
        expectShows(view, analysis::crossAlignment(*a, 0, 2));
        QCOMPARE(view.grid()->cells().targets, (QStringList{"Die", "Schlüssel", "liegen."}));
        QCOMPARE(view.grid()->cells().sources, (QStringList{"The", "keys", "are", "there."}));
        view.setHead(1, -1);
        expectShows(view, analysis::crossAlignment(*a, 1, -1));
        QVERIFY(view.placeholder().isEmpty());
    }

    void selectorsChangeWhatIsShown() {
        AlignmentView view;
        const auto a = smallAnalysis();
        view.setAnalysis(a);
        // A new analysis shows its last layer's mean.
        QCOMPARE(view.layer(), 1);
        QCOMPARE(view.head(), -1);
        auto* layer = view.findChild<QComboBox*>(QStringLiteral("alignmentLayer"));
        auto* head = view.findChild<QComboBox*>(QStringLiteral("alignmentHead"));
        auto* agg = view.findChild<QComboBox*>(QStringLiteral("alignmentAggregation"));
        QCOMPARE(layer->count(), 2);
        QCOMPARE(head->count(), 4);
        QCOMPARE(head->itemText(0), QStringLiteral("all heads (mean)"));
        QCOMPARE(head->itemText(1), QStringLiteral("head 0"));
        layer->setCurrentIndex(0);
        expectShows(view, analysis::crossAlignment(*a, 0, -1));
        head->setCurrentIndex(2);
        QCOMPARE(view.head(), 1);
        expectShows(view, analysis::crossAlignment(*a, 0, 1));
        agg->setCurrentIndex(agg->findData(static_cast<int>(analysis::FromAggregation::First)));
        QCOMPARE(view.aggregation(), analysis::FromAggregation::First);
        const auto first = analysis::crossAlignment(*a, 0, 1, analysis::FromAggregation::First);
        QVERIFY(first.weights != analysis::crossAlignment(*a, 0, 1).weights);
        expectShows(view, first);
        QVERIFY(view.ruleText().contains(QStringLiteral("first token")));
        agg->setCurrentIndex(agg->findData(static_cast<int>(analysis::FromAggregation::Max)));
        expectShows(view, analysis::crossAlignment(*a, 0, 1, analysis::FromAggregation::Max));
        // The session's head follows; an out-of-range one is ignored.
        view.setHead(1, 0);
        QCOMPARE(layer->currentIndex(), 1);
        QCOMPARE(head->currentIndex(), 1);
        view.setHead(2, 0);
        QCOMPARE(view.layer(), 1);
        // Another analysis with the same shape keeps the choice.
        view.setAnalysis(smallAnalysis());
        QCOMPARE(view.layer(), 1);
        QCOMPARE(view.head(), 0);
    }

    void emptyStatesSayWhatIsMissing() {
        AlignmentView view;
        QCOMPARE(view.placeholder(), AlignmentView::oneStackText());
        QVERIFY(view.placeholder().contains(QStringLiteral("encoder-decoder")));
        QVERIFY(view.alignment() == nullptr);
        QVERIFY(!view.findChild<QComboBox*>(QStringLiteral("alignmentLayer"))->isEnabled());
        const auto a = smallAnalysis();
        view.setAnalysis(a);
        QVERIFY(view.alignment() != nullptr);
        auto noTarget = std::make_shared<analysis::Seq2SeqAnalysis>(*a);
        noTarget->targetTokens.clear();
        noTarget->targetText.clear();
        view.setAnalysis(noTarget);
        QCOMPARE(view.placeholder(), AlignmentView::noTargetText());
        QVERIFY(view.placeholder().startsWith(QStringLiteral("Type a target or use Translate")));
        QVERIFY(view.alignment() == nullptr);
        QVERIFY(view.grid()->cells().weights.size() == 0);
        view.setAnalysis(nullptr);
        QCOMPARE(view.placeholder(), AlignmentView::oneStackText());
        QString error;
        QVERIFY(!view.exportCsv(QStringLiteral("/tmp/none.csv"), &error));
        QVERIFY2(error.contains(QStringLiteral("/tmp/none.csv")), qPrintable(error));
    }

    void clickEmitsThePickedPairAndHoverTellsTheWeight() {
        AlignmentView view;
        const auto a = smallAnalysis();
        view.resize(1024, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setAnalysis(a);
        view.setHead(0, 0);
        QSignalSpy picked(&view, &AlignmentView::cellPicked);
        AlignmentGrid* grid = view.grid();
        QTest::mouseClick(grid, Qt::LeftButton, {}, grid->cellRect(2, 1).center().toPoint());
        QCOMPARE(picked.count(), 1);
        QCOMPARE(picked[0][0].toInt(), 2);
        QCOMPARE(picked[0][1].toInt(), 1);
        // Outside the cells (on a header): nothing.
        QTest::mouseClick(grid, Qt::LeftButton, {}, QPoint(2, 2));
        QCOMPARE(picked.count(), 1);
        const auto want = analysis::crossAlignment(*a, 0, 0);
        QCOMPARE(grid->cellToolTip(2, 1),
                 QStringLiteral("liegen. → keys: %1").arg(want.weights(2, 1), 0, 'f', 2));
        QVERIFY(grid->cellToolTip(3, 0).isEmpty());
    }

    void exportsWriteTheWeights() {
        AlignmentView view;
        const auto a = smallAnalysis();
        view.setAnalysis(a);
        view.setHead(1, 1);
        QTemporaryDir dir;
        const QString csvPath = dir.filePath(QStringLiteral("alignment.csv"));
        QString error;
        QVERIFY2(view.exportCsv(csvPath, &error), qPrintable(error));
        QFile f(csvPath);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(f.readAll()).trimmed().split('\n');
        QCOMPARE(lines.size(), 1 + 3 * 4);
        QCOMPARE(lines[0], QStringLiteral("layer,head,target_word_from,target_index,target_word,"
                                          "source_index,source_word,weight"));
        const auto want = analysis::crossAlignment(*a, 1, 1);
        const QStringList row = lines[1 + 1 * 4 + 3].split(',');
        QCOMPARE(row[0], QStringLiteral("1"));
        QCOMPARE(row[1], QStringLiteral("1"));
        QCOMPARE(row[2], QStringLiteral("mean"));
        QCOMPARE(row[4], QStringLiteral("Schlüssel"));
        QCOMPARE(row[6], QStringLiteral("there."));
        QCOMPARE(row[7].toFloat(), want.weights(1, 3));
        for (const char* name : {"alignment.png", "alignment.svg"}) {
            const QString path = dir.filePath(QLatin1String(name));
            QVERIFY2(view.exportImage(path, &error), qPrintable(error));
            QVERIFY(QFile(path).size() > 1000);
        }
        QVERIFY(!QImage(dir.filePath(QStringLiteral("alignment.png"))).isNull());
        const QString bad = dir.filePath(QStringLiteral("missing/alignment.csv"));
        QVERIFY(!view.exportCsv(bad, &error));
        QVERIFY2(error.startsWith(bad), qPrintable(error));
    }

    // 5 to 40 words per side: at 1920×1080 everything fits without scrolling; at 1024×700
    // small grids get large cells and 40 × 40 scrolls rather than shrinking below the minimum.
    void layoutScalesFromFiveToFortyWords() {
        struct Case {
            int words;
            QSize window;
            bool fits;
        };

        for (const Case& c : {Case{5, {1024, 700}, true}, Case{40, {1024, 700}, false},
                              Case{5, {1920, 1080}, true}, Case{40, {1920, 1080}, true}}) {
            AlignmentView view;
            view.resize(c.window);
            view.show();
            QVERIFY(QTest::qWaitForWindowExposed(&view));
            view.setAnalysis(makeAnalysis(numberedWords(c.words, "Ziel"),
                                          numberedWords(c.words, "source"), 1, 1));
            QCoreApplication::processEvents();
            const app::AlignmentLayout l = view.grid()->currentLayout();
            const QString what = QStringLiteral("%1 words at %2x%3: cell %4")
                                     .arg(c.words)
                                     .arg(c.window.width())
                                     .arg(c.window.height())
                                     .arg(l.cell);
            QVERIFY2(l.cell >= app::kMinAlignmentCell, qPrintable(what));
            QVERIFY2(l.needed.width() <= view.grid()->width() + 0.5, qPrintable(what));
            QVERIFY2(l.needed.height() <= view.grid()->height() + 0.5, qPrintable(what));
            auto* scroll = view.findChild<QScrollArea*>();
            const bool scrolls = scroll->verticalScrollBar()->maximum() > 0 ||
                                 scroll->horizontalScrollBar()->maximum() > 0;
            QVERIFY2(scrolls == !c.fits, qPrintable(what));
            if (c.words == 5) {
                QVERIFY2(l.cell >= 40 && l.numbers, qPrintable(what));
            }
        }
    }

    // The tab sits between the model grid and the right docks of a 1024-pixel window.
    void controlsLeaveTheWindowNarrow() {
        AlignmentView view;
        view.setAnalysis(smallAnalysis());
        QVERIFY2(view.minimumSizeHint().width() <= 520,
                 qPrintable(QString::number(view.minimumSizeHint().width())));
    }

    void longWordsAreElidedNotPushingTheCellsAway() {
        AlignmentView view;
        view.resize(1024, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const std::string longWord(80, 'x');
        view.setAnalysis(makeAnalysis({{longWord}, {"b"}}, {{longWord}, {"y"}}, 1, 1));
        const app::AlignmentLayout l = view.grid()->currentLayout();
        QVERIFY(l.rotatedColumns);
        QVERIFY2(
            l.rowLabelWidth < 220 && l.columnLabelHeight < 180,
            qPrintable(QStringLiteral("%1 x %2").arg(l.rowLabelWidth).arg(l.columnLabelHeight)));
    }
};

QTEST_MAIN(AlignmentViewTest)
#include "alignment_view_test.moc"
