// CSV tables for spreadsheets, pandas and R: a small generic writer (a header, then rows of
// strings and numbers) and the per-head statistics table of a SentenceAnalysis.
//
// Fields are quoted as RFC 4180 says, and only when they need it. Numbers are written in the
// shortest form that reads back to the same value; non-finite ones as nan, inf and -inf, which
// pandas and R read back as numbers. Records end in "\n" rather than RFC 4180's "\r\n": every
// CSV reader accepts it, and line-based Unix tools (cut, awk) then see no stray '\r'.
//
// Files are written by output_file.h's rules (a temporary file renamed into place, symlinks
// followed, devices and pipes written through), so a failed write never leaves a half-written
// file and never destroys an older one. Failures throw Error
// "<file>: <reason>"; a row of the wrong length throws InvalidArgument.
// A CsvWriter is a plain value: one thread at a time per object.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "attnscope/analysis/head_stats.h"
#include "attnscope/analysis/sentence_analysis.h"

// (The namespace is "exporting" because "export" is a C++ keyword.)
namespace attnscope::exporting {

// One field. float is kept apart from double so a float prints as "0.1", not as the double
// nearest to it ("0.10000000149011612").
using CsvValue = std::variant<std::string, std::int64_t, double, float>;

// `field` as one CSV field: unchanged unless it holds a comma, a double quote, CR or LF (or
// starts or ends with a space, which some readers trim); then wrapped in double quotes with
// every inner quote doubled.
std::string csvQuoted(std::string_view field);

// The text of one value as CsvWriter writes it (strings quoted when needed).
std::string csvField(const CsvValue& value);

class CsvWriter {
public:
    // Throws InvalidArgument for an empty header.
    explicit CsvWriter(const std::vector<std::string>& header);

    // Throws InvalidArgument when the row does not have one value per header column.
    void addRow(const std::vector<CsvValue>& row);

    std::size_t columnCount() const { return m_columns; }

    std::size_t rowCount() const { return m_rows; }

    // The header and every row so far.
    const std::string& text() const { return m_text; }

    // Writes text() to `path` atomically (see the top of this header).
    void writeFile(const std::filesystem::path& path) const;

private:
    void appendField(std::size_t column, const std::string& field);

    std::size_t m_columns = 0;
    std::size_t m_rows = 0;
    std::string m_text;  // already formatted, so writing never fails half-way on a bad value
};

// Columns: layer, head, mean_entropy_nats, mean_normalized_entropy, max_weight,
// mean_max_weight, max_abs_logit; one row per head in [layer][head] order (0-based).
CsvWriter headStatsTable(const std::vector<analysis::HeadStats>& stats);

// headStatsTable of the analysis; for an ablated pass with an eighth column, `ablation`: the
// head's ablation kind ("zero", "mean", "sink"), empty for heads not ablated.
void writeHeadStatsCsv(const std::filesystem::path& path,
                       const analysis::SentenceAnalysis& analysis);

}  // namespace attnscope::exporting
