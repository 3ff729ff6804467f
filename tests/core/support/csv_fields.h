// Reading back the CSV files the CLI writes: one record split into its fields, with RFC 4180
// quoting as csv_writer.h writes it (token pieces may hold commas and quotes).
#pragma once

#include <string>
#include <vector>

namespace attnscope::testing {

inline std::vector<std::string> csvFields(const std::string& line) {
    std::vector<std::string> out(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
            out.back() += '"';
            ++i;
        } else if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            out.emplace_back();
        } else {
            out.back() += c;
        }
    }
    return out;
}

}  // namespace attnscope::testing
