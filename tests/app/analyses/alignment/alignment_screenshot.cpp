// Not a test: writes the README's screenshot of the alignment view (and, for looking at, the view
// at other window sizes).
//   QT_QPA_PLATFORM=offscreen alignment_screenshot MODEL_DIR OUT.png "source" "target" [WxH]
// MODEL_DIR is an encoder-decoder model folder with its tokenizer (make_alignment_model.py
// makes a random-weight one from the T5 fixture). The source and target run through the model
// with teacher forcing (analyzeSeq2SeqText); the view shows its last layer's head mean.
// ATTNSCOPE_ALIGNMENT_FIGURE=FILE.(png|svg|pdf) also writes the view's exported figure.
#include <cstdio>
#include <exception>

#include <QApplication>
#include <QEventLoop>
#include <QTimer>

#include "analyses/alignment/alignment_view.h"
#include "attnscope/analysis/seq2seq_analysis.h"
#include "attnscope/model/model.h"

using namespace attnscope;

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    if (argc < 5) {
        std::fprintf(stderr, "usage: alignment_screenshot MODEL_DIR OUT.png SOURCE TARGET [WxH]\n");
        return 2;
    }
    QSize size(1100, 640);
    if (argc > 5) {
        const QStringList wh = QString::fromLocal8Bit(argv[5]).split(QLatin1Char('x'));
        if (wh.size() == 2) {
            size = QSize(wh[0].toInt(), wh[1].toInt());
        }
    }
    std::shared_ptr<const analysis::Seq2SeqAnalysis> result;
    try {
        const auto model = model::loadModel(argv[1]);
        result = std::make_shared<const analysis::Seq2SeqAnalysis>(
            analysis::analyzeSeq2SeqText(*model, argv[3], argv[4]));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "alignment_screenshot: %s\n", e.what());
        return 1;
    }
    app::AlignmentView view;
    view.resize(size);
    view.show();
    view.setAnalysis(result);
    QEventLoop settle;
    QTimer::singleShot(300, &settle, &QEventLoop::quit);
    settle.exec();
    if (!view.grab().save(QString::fromLocal8Bit(argv[2]))) {
        std::fprintf(stderr, "alignment_screenshot: cannot write %s\n", argv[2]);
        return 1;
    }
    std::printf("wrote %s\n", argv[2]);
    if (const QString figure = qEnvironmentVariable("ATTNSCOPE_ALIGNMENT_FIGURE");
        !figure.isEmpty()) {
        QString error;
        if (!view.exportImage(figure, &error)) {
            std::fprintf(stderr, "alignment_screenshot: %s\n", qPrintable(error));
            return 1;
        }
        std::printf("wrote %s\n", qPrintable(figure));
    }
    return 0;
}
