#include "panels/local_models.h"

#include <QDir>
#include <QFileInfo>
#include <QLocale>
#include <QObject>
#include <QStringList>

namespace attnscope::app {

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

QString nativePath(const std::filesystem::path& p) {
    return QDir::toNativeSeparators(QString::fromStdString(p.string()));
}

// "7.6 billion parameters" for the tool tip: the count says how large a model is better than
// its file size, which depends on the quantization.
QString parameterText(std::uint64_t n) {
    const QLocale locale;
    if (n >= 1'000'000'000) {
        return QObject::tr("%1 billion parameters")
            .arg(locale.toString(static_cast<double>(n) / 1e9, 'f', 1));
    }
    if (n >= 1'000'000) {
        return QObject::tr("%1 million parameters")
            .arg(locale.toString(static_cast<double>(n) / 1e6, 'f', 1));
    }
    return QObject::tr("%1 parameters").arg(locale.toString(static_cast<qulonglong>(n)));
}

}  // namespace

model::ModelPlaces localModelPlaces() {
    const auto env = [](const char* name) { return qEnvironmentVariable(name).toStdString(); };
    return model::modelPlaces(env, QDir::homePath().toStdString());
}

std::filesystem::path huggingFaceHubDir() {
    return localModelPlaces().huggingFaceHub;
}

std::vector<model::FoundModel> findLocalModels() {
    return model::findLocalModels(localModelPlaces());
}

QString localModelDetails(const model::FoundModel& m) {
    QStringList parts;
    for (const std::string& part : {m.modelType, m.quantization}) {
        if (!part.empty()) {
            parts << qs(part);
        }
    }
    if (m.sizeBytes > 0) {
        parts << QLocale().formattedDataSize(static_cast<qint64>(m.sizeBytes), 1,
                                             QLocale::DataSizeIecFormat);
    }
    parts << qs(m.source);
    return parts.join(QStringLiteral(" · "));
}

QString localModelLabel(const model::FoundModel& m) {
    return qs(m.name) + QStringLiteral(" · ") + localModelDetails(m);
}

QString localModelToolTip(const model::FoundModel& m) {
    QStringList lines{qs(m.name)};  // the list may show it elided
    if (!m.supported) {
        lines << (m.note.empty() ? QObject::tr("AttnScope cannot open it") : qs(m.note));
    } else if (m.parameters > 0) {
        const QString title = qs(m.title);
        lines << (title.isEmpty() || title == qs(m.name)
                      ? parameterText(m.parameters)
                      : QObject::tr("%1, %2").arg(title, parameterText(m.parameters)));
    }
    lines << nativePath(m.path);
    return lines.join(QLatin1Char('\n'));
}

QString modelTitle(const QString& path) {
    const std::string ollama = model::ollamaModelName(path.toStdString());
    return ollama.empty() ? QFileInfo(path).fileName() : qs(ollama);
}

QString recentModelLabel(const QString& path) {
    const std::string ollama = model::ollamaModelName(path.toStdString());
    return ollama.empty() ? path : qs(ollama) + QStringLiteral(" · ") + qs(model::kSourceOllama);
}

QString noLocalModelsText() {
    return QObject::tr("No models in the Hugging Face cache, llama.cpp's cache or Ollama's store");
}

QString localModelPlacesText() {
    const model::ModelPlaces places = localModelPlaces();
    QStringList lines{QObject::tr("AttnScope looks in:"), nativePath(places.huggingFaceHub),
                      nativePath(places.llamaCppCache)};
    for (const std::filesystem::path& store : places.ollamaStores) {
        lines << nativePath(store);
    }
    return lines.join(QLatin1Char('\n'));
}

}  // namespace attnscope::app
