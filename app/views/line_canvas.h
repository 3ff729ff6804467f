// The drawing surface of the line view: the sentence's tokens in a left column (queries) and a
// right column (keys), and a line from each query to each key whose opacity and width follow
// the attention weight, one colour per overlaid head. Hovering a token highlights its lines
// (outgoing for a query, incoming for a key), dims the rest and shows the weights in a tooltip.
//
// Lines are built once per result/head change (masked pairs and weights below `minWeight`
// are skipped), bucketed by weight and drawn with one drawLines call per bucket into cached
// tiles of the band; a hover only dims the tiles and draws one token's lines, so 512 tokens
// scroll and hover smoothly. The canvas is as tall as its
// rows; the line view puts it in a QScrollArea. GUI thread only.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <vector>

#include <QColor>
#include <QImage>
#include <QStringList>
#include <QWidget>

#include "attnscope/analysis/sentence_analysis.h"
#include "attnscope/base/head_id.h"

namespace attnscope::app {

struct OverlayHead {
    HeadId head;
    QColor color;
    Matrix map;  // [n, n] the head's attention (recorded or recomputed; see the session)
};

class LineCanvas : public QWidget {
    Q_OBJECT

public:
    enum class Side { Query, Key };

    struct Token {
        Side side = Side::Query;
        int index = 0;

        bool operator==(const Token&) const = default;
    };

    // A hovered token shows all of its lines down to this weight, whatever the threshold of
    // the whole picture; lighter ones would be invisible (opacity ~ sqrt(weight) < 0.02).
    static constexpr float kHoverMinWeight = 4e-4f;

    explicit LineCanvas(QWidget* parent = nullptr);

    // Draws `heads` of `result`; heads outside the result's shape are skipped.
    void setData(std::shared_ptr<const analysis::SentenceAnalysis> result,
                 std::vector<OverlayHead> heads, float minWeight);
    void clear(const QString& placeholder);

    // The text shown instead of lines; empty while lines are drawn.
    const QString& placeholder() const { return m_placeholder; }

    // Lines drawn over all heads (not counting masked pairs or weights below the threshold).
    int lineCount() const;
    // Lines drawn for the hovered token (weights >= kHoverMinWeight, all heads); 0 without hover.
    int highlightedLineCount() const;

    std::optional<Token> hoveredToken() const { return m_hover; }

    void setHoveredToken(std::optional<Token> token);

    // A token's label rectangle in canvas coordinates (for tests and scrolling).
    QRectF tokenRect(Token token) const;
    std::optional<Token> tokenAt(QPointF pos) const;

    int tokenCount() const { return m_labels.size(); }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    static constexpr int kBuckets = 16;      // weight classes drawn with one pen each
    static constexpr int kTileHeight = 512;  // rows of the band rendered and cached together

    struct Line {
        int q = 0;
        int k = 0;
        float weight = 0;
    };

    struct HeadLines {
        OverlayHead head;
        std::vector<Line> lines;  // sorted by weight bucket, light first
        std::array<std::size_t, kBuckets + 1> bucketStart{};  // lines of bucket b: [b, b+1)
    };

    struct Layout {
        double top = 0;          // y of row 0's top edge
        double row = 0;          // row height
        double labelWidth = 0;   // width of each label column
        double leftLabels = 0;   // x of the left label column
        double lineLeft = 0;     // x where lines start (right of the query labels)
        double lineRight = 0;    // x where lines end (left of the key labels)
        double rightLabels = 0;  // x of the right label column
    };

    Layout layout() const;

    double rowCenter(const Layout& l, int i) const { return l.top + (i + 0.5) * l.row; }

    void buildLines(float minWeight);
    void paintLineTiles(QPainter& p, const Layout& l, const QRectF& exposed);
    void paintLines(QPainter& p, const Layout& l, const QRectF& area) const;
    void paintHoverLines(QPainter& p, const Layout& l) const;
    template <class Fn>
    void forEachHoverWeight(const HeadLines& h, Fn&& fn) const;
    void paintLabels(QPainter& p, const Layout& l, const QRectF& exposed) const;
    void paintTints(QPainter& p, const Layout& l, const QRectF& exposed) const;
    QString tooltipFor(Token token) const;
    void updateSize();
    void measureLabels();

    std::shared_ptr<const analysis::SentenceAnalysis> m_result;
    std::vector<HeadLines> m_heads;
    QStringList m_labels;             // [nTokens]
    std::vector<bool> m_fullyMasked;  // [nTokens] query rows with no allowed key
    double m_widestLabel = 0;         // pixels, at the current font
    QString m_placeholder;
    std::optional<Token> m_hover;
    std::vector<QImage> m_tiles;  // cached line layer, tile t covers y in [t, t+1) * kTileHeight
    QRect m_tileBand;             // x range and tile height the tiles were rendered for
    qreal m_tileDpr = 0;
};

}  // namespace attnscope::app
