// An SVG file read back as a viewer would, for the figure export tests: the strings of its text
// elements, how many raster images it embeds, and why it is not well-formed XML.
#pragma once

#include <filesystem>

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QXmlStreamReader>

#include "../../core/support/test_files.h"

namespace attnscope::testing {

struct SvgContent {
    QString error;  // empty: well-formed
    QStringList texts;
    int images = 0;
};

inline SvgContent readSvg(const std::filesystem::path& path) {
    SvgContent out;
    const QByteArray bytes = QByteArray::fromStdString(readFile(path));
    QXmlStreamReader xml(bytes);
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement() && xml.name() == QLatin1String("text")) {
            out.texts << xml.readElementText(QXmlStreamReader::IncludeChildElements).trimmed();
        } else if (xml.isStartElement() && xml.name() == QLatin1String("image")) {
            ++out.images;
        }
    }
    if (xml.hasError()) {
        out.error = xml.errorString() + QStringLiteral(" at line %1").arg(xml.lineNumber());
    }
    return out;
}

}  // namespace attnscope::testing
