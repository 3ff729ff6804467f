// Colour bar ticks and captions (render/color_bar.h) and the shared-range cell colouring and
// drawing (render/heat_cells.h).
#include "render/color_bar.h"

#include <cmath>
#include <limits>

#include <QPainter>
#include <gtest/gtest.h>

#include "gui_environment.h"
#include "render/heat_cells.h"

namespace attnscope::render {
namespace {

QStringList texts(const std::vector<ColorBarTick>& ticks) {
    QStringList out;
    for (const ColorBarTick& t : ticks) {
        out << t.text;
    }
    return out;
}

TEST(ColorBar, LinearTicksAreRoundNumbersBetweenTheEnds) {
    const ColorRange range{0.0, 0.83, Scaling::Linear, Colormap::Viridis, "attention weight"};
    const auto ticks = colorBarTicks(range);
    ASSERT_GE(ticks.size(), 2u);
    EXPECT_TRUE(ticks[0].end);
    EXPECT_EQ(ticks[0].position, 0.0);
    EXPECT_EQ(ticks[0].text, QStringLiteral("0.0"));
    EXPECT_TRUE(ticks[1].end);
    EXPECT_EQ(ticks[1].position, 1.0);
    EXPECT_EQ(ticks[1].text, QStringLiteral("0.83"));
    EXPECT_EQ(texts(ticks).mid(2), QStringList({"0.2", "0.4", "0.6", "0.8"}));
    EXPECT_NEAR(ticks[3].position, 0.4 / 0.83, 1e-12);
    EXPECT_EQ(colorBarCaption(range), QStringLiteral("attention weight"));
}

TEST(ColorBar, LogTicksArePowersOfTenLabelledAsWeights) {
    const ColorRange range{-4.0, std::log10(0.5), Scaling::Log, Colormap::Viridis,
                           "log10 attention weight"};
    const QStringList t = texts(colorBarTicks(range));
    EXPECT_EQ(t, QStringList({"10⁻⁴", "0.5", "10⁻³", "10⁻²", "10⁻¹"}));
    EXPECT_EQ(colorBarCaption(range), QStringLiteral("attention weight (log scale)"));
}

TEST(ColorBar, DegenerateRangeShowsOneEnd) {
    const ColorRange range{0.5, 0.5, Scaling::Linear, Colormap::Viridis, "x"};
    EXPECT_EQ(colorBarTicks(range).size(), 1u);
}

TEST(ColorBar, PaintsGradientAndNumbers) {
    QImage image(200, 300, QImage::Format_RGB32);
    image.fill(Qt::white);
    {
        QPainter p(&image);
        QFont font;
        font.setPixelSize(12);
        paintColorBar(p, QRectF(10, 10, 20, 280),
                      {0.0, 1.0, Scaling::Linear, Colormap::Magma, "weight"}, {font, font, 4, 3});
    }
    // Near the top the bar shows the map's top colour, near the bottom its bottom colour.
    const auto near = [](QRgb a, QRgb b) {
        return std::abs(qRed(a) - qRed(b)) + std::abs(qGreen(a) - qGreen(b)) +
                   std::abs(qBlue(a) - qBlue(b)) <
               40;
    };
    EXPECT_TRUE(near(image.pixel(20, 14), colorAt(Colormap::Magma, 1.0)));
    EXPECT_TRUE(near(image.pixel(20, 285), colorAt(Colormap::Magma, 0.0)));
}

TEST(HeatCells, SharedRangeColouringMatchesHeatmapImage) {
    Matrix v(3, 3);
    v << 0.7f, 0.2f, 0.1f, 0.05f, 0.9f, 0.05f, 0.3f, 0.3f, 0.4f;
    BoolMatrix allowed = BoolMatrix::Ones(3, 3);
    allowed(0, 2) = 0;
    for (const Scaling s : {Scaling::Linear, Scaling::Log, Scaling::PerRow}) {
        const HeatmapStyle style{Colormap::Viridis, s};
        ColorRange range;
        const QImage own = heatmapImage(v, &allowed, style, &range);
        EXPECT_EQ(heatmapImageInRange(v, &allowed, style, range), own)
            << scalingName(s).toStdString();
    }
}

// NaN (from non-finite weights) must not be drawn as the colour of a zero weight (issue 14).
TEST(HeatCells, NonFiniteCellsGetTheirOwnColour) {
    Matrix v(2, 2);
    v << 0.5f, std::nanf(""), 0.25f, 0.75f;
    Matrix d(1, 2);
    d << std::numeric_limits<float>::infinity(), 0.5f;
    for (const Scaling s : {Scaling::Linear, Scaling::Log, Scaling::PerRow}) {
        const QImage img = heatmapImage(v, nullptr, HeatmapStyle{Colormap::Magma, s}, nullptr);
        EXPECT_EQ(img.pixel(1, 0), nonFiniteCellColor().rgb()) << scalingName(s).toStdString();
        EXPECT_NE(img.pixel(0, 1), nonFiniteCellColor().rgb());
    }
    ColorRange range;
    const QImage diff = differenceImage(d, &range);
    EXPECT_EQ(diff.pixel(0, 0), nonFiniteCellColor().rgb());
    EXPECT_DOUBLE_EQ(range.hi, 0.5);
}

TEST(HeatCells, UnionRangeCoversEveryRange) {
    const ColorRange a{0.0, 0.4, Scaling::Linear, Colormap::Viridis, "attention weight"};
    const ColorRange b{0.1, 0.9, Scaling::Linear, Colormap::Viridis, "attention weight"};
    const ColorRange u = unionRange({a, b});
    EXPECT_EQ(u.lo, 0.0);
    EXPECT_EQ(u.hi, 0.9);
    EXPECT_EQ(u.caption, a.caption);
}

// Vector cells and the image path give the same colours, and the hatch marks masked cells only.
TEST(HeatCells, RectanglesMatchTheImageAndHatchMarksMaskedCells) {
    QImage cells(3, 3, QImage::Format_RGB32);
    for (int i = 0; i < 9; ++i) {
        cells.setPixel(i % 3, i / 3, colorAt(Colormap::Viridis, i / 8.0));
    }
    QImage viaRects(90, 90, QImage::Format_RGB32);
    QImage viaImage(90, 90, QImage::Format_RGB32);
    for (auto [target, drawing] : {std::pair{&viaRects, CellDrawing::Rectangles},
                                   std::pair{&viaImage, CellDrawing::Image}}) {
        target->fill(Qt::white);
        QPainter p(target);
        paintHeatCells(p, QRectF(0, 0, 90, 90), cells, drawing);
    }
    for (int i = 0; i < 9; ++i) {
        const int x = (i % 3) * 30 + 15;
        const int y = (i / 3) * 30 + 15;
        EXPECT_EQ(viaRects.pixel(x, y), cells.pixel(i % 3, i / 3)) << i;
        EXPECT_EQ(viaImage.pixel(x, y), cells.pixel(i % 3, i / 3)) << i;
    }
    BoolMatrix allowed = BoolMatrix::Ones(3, 3);
    allowed(0, 2) = 0;
    QImage hatched = viaImage;
    {
        QPainter p(&hatched);
        paintMaskHatch(p, QRectF(0, 0, 90, 90), allowed, {Qt::black, 6, 1});
    }
    int changedInMasked = 0;
    int changedElsewhere = 0;
    for (int y = 0; y < 90; ++y) {
        for (int x = 0; x < 90; ++x) {
            const bool masked = x >= 60 && y < 30;
            if (hatched.pixel(x, y) != viaImage.pixel(x, y)) {
                ++(masked ? changedInMasked : changedElsewhere);
            }
        }
    }
    EXPECT_GT(changedInMasked, 50);
    EXPECT_LT(changedElsewhere, 40);  // line ends may touch the border pixels
}

}  // namespace
}  // namespace attnscope::render
