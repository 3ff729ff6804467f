#include "attnscope/export/csv_writer.h"

#include <array>
#include <charconv>
#include <cmath>

#include "attnscope/base/error.h"
#include "attnscope/export/output_file.h"

namespace attnscope::exporting {

namespace fs = std::filesystem;

namespace {

template <class Float>
std::string floatText(Float v) {
    if (std::isnan(v)) {
        return "nan";
    }
    if (std::isinf(v)) {
        return v > 0 ? "inf" : "-inf";
    }
    // Without a format argument to_chars writes the shortest text that parses back to `v`.
    std::array<char, 64> buf{};
    const auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
    return ec == std::errc() ? std::string(buf.data(), end) : std::string("nan");
}

}  // namespace

std::string csvQuoted(std::string_view field) {
    const bool needsQuotes = field.find_first_of(",\"\r\n") != std::string_view::npos ||
                             (!field.empty() && (field.front() == ' ' || field.back() == ' '));
    if (!needsQuotes) {
        return std::string(field);
    }
    std::string out = "\"";
    for (const char c : field) {
        if (c == '"') {
            out += '"';
        }
        out += c;
    }
    out += '"';
    return out;
}

std::string csvField(const CsvValue& value) {
    if (const auto* s = std::get_if<std::string>(&value)) {
        return csvQuoted(*s);
    }
    if (const auto* i = std::get_if<std::int64_t>(&value)) {
        return std::to_string(*i);
    }
    if (const auto* d = std::get_if<double>(&value)) {
        return floatText(*d);
    }
    return floatText(std::get<float>(value));
}

CsvWriter::CsvWriter(const std::vector<std::string>& header) : m_columns(header.size()) {
    if (header.empty()) {
        throw InvalidArgument("CSV table: the header has no columns");
    }
    for (std::size_t c = 0; c < header.size(); ++c) {
        appendField(c, csvQuoted(header[c]));
    }
    m_text += '\n';
}

void CsvWriter::addRow(const std::vector<CsvValue>& row) {
    if (row.size() != m_columns) {
        throw InvalidArgument("CSV table: row " + std::to_string(m_rows + 1) + " has " +
                              std::to_string(row.size()) + " values, expected " +
                              std::to_string(m_columns) + " (one per header column)");
    }
    for (std::size_t c = 0; c < row.size(); ++c) {
        appendField(c, csvField(row[c]));
    }
    m_text += '\n';
    ++m_rows;
}

void CsvWriter::appendField(std::size_t column, const std::string& field) {
    if (column > 0) {
        m_text += ',';
    }
    m_text += field;
}

void CsvWriter::writeFile(const fs::path& path) const {
    writeOutputFile(path, m_text);
}

CsvWriter headStatsTable(const std::vector<analysis::HeadStats>& stats) {
    CsvWriter table({"layer", "head", "mean_entropy_nats", "mean_normalized_entropy", "max_weight",
                     "mean_max_weight", "max_abs_logit"});
    for (const analysis::HeadStats& s : stats) {
        table.addRow({std::int64_t{s.head.layer}, std::int64_t{s.head.head}, s.meanEntropy,
                      s.meanNormalizedEntropy, s.maxWeight, s.meanMaxWeight, s.maxAbsLogit});
    }
    return table;
}

void writeHeadStatsCsv(const fs::path& path, const analysis::SentenceAnalysis& analysis) {
    const forward::ForwardResult& r = analysis.forward;
    if (r.interventions.empty()) {
        headStatsTable(analysis.stats).writeFile(path);
        return;
    }
    // An ablated pass: a zero-ablated head's entropy 0 means "no output", not "focused"
    // (methods.md §3.1), so each row says how its head was ablated.
    CsvWriter table({"layer", "head", "mean_entropy_nats", "mean_normalized_entropy", "max_weight",
                     "mean_max_weight", "max_abs_logit", "ablation"});
    for (const analysis::HeadStats& s : analysis.stats) {
        const auto kind = r.ablationOf(s.head);
        table.addRow({std::int64_t{s.head.layer}, std::int64_t{s.head.head}, s.meanEntropy,
                      s.meanNormalizedEntropy, s.maxWeight, s.meanMaxWeight, s.maxAbsLogit,
                      kind ? forward::ablationKindName(*kind) : std::string()});
    }
    table.writeFile(path);
}

}  // namespace attnscope::exporting
