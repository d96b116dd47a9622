// CSV reading for the data-driven analyses (see table.h).
#include "compiler/analysis/table.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace pamc::analysis {

void data_error(const std::string& message, Loc loc) {
  throw CompileError{Diagnostic{Severity::Error, DiagKind::DataError, loc, message, {}}};
}

namespace {

// One CSV line into trimmed fields; quotes may enclose a field ("" is a quote inside).
void split_line(std::string_view line, const SourceFile* file, std::uint32_t lineno, Table::Row& row) {
  std::size_t i = 0;
  for (;;) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::string text;
    auto col = static_cast<std::uint32_t>(i + 1);
    if (i < line.size() && line[i] == '"') {
      for (++i;; ++i) {
        if (i >= line.size()) data_error("unterminated quoted field", Loc{file, lineno, col});
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            text += '"';
            ++i;
            continue;
          }
          ++i;
          break;
        }
        text += line[i];
      }
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      if (i < line.size() && line[i] != ',')
        data_error("text after a quoted field", Loc{file, lineno, static_cast<std::uint32_t>(i + 1)});
    } else {
      std::size_t start = i;
      while (i < line.size() && line[i] != ',') ++i;
      std::size_t end = i;
      while (end > start && (line[end - 1] == ' ' || line[end - 1] == '\t')) --end;
      text = std::string(line.substr(start, end - start));
    }
    row.cells.push_back(std::move(text));
    row.cols.push_back(col);
    if (i >= line.size()) break;
    ++i;  // the comma
  }
}

}  // namespace

int Table::find(const std::string& name) const {
  auto it = std::find(columns.begin(), columns.end(), name);
  return it == columns.end() ? -1 : static_cast<int>(it - columns.begin());
}

std::size_t Table::require(const std::string& name) const {
  int c = find(name);
  if (c < 0) data_error("no column '" + name + "' in the header", Loc{file.get(), header_line, 1});
  return static_cast<std::size_t>(c);
}

double Table::number(const Row& row, std::size_t column) const {
  const std::string& t = row.cells[column];
  if (t.empty()) data_error("empty cell in column '" + columns[column] + "'", where(row, column));
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || t.find_first_of("xXpP") != std::string::npos)
    data_error("column '" + columns[column] + "': '" + t + "' is not a number", where(row, column));
  if (!std::isfinite(v) || errno == ERANGE)
    data_error("column '" + columns[column] + "': '" + t + "' is outside what a double holds", where(row, column));
  return v;
}

void parse_table(SourceFileP file, Table& t) {
  t = Table{};
  t.file = std::move(file);
  const SourceFile* f = t.file.get();
  for (std::uint32_t line = 1; line <= f->line_starts.size(); ++line) {
    std::string_view text = f->line_text(line);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    std::size_t first = text.find_first_not_of(" \t");
    if (first == std::string_view::npos || text[first] == '#') continue;
    Table::Row row;
    row.line = line;
    split_line(text, f, line, row);
    if (t.header_line == 0) {
      t.header_line = line;
      for (std::size_t c = 0; c < row.cells.size(); ++c) {
        if (row.cells[c].empty()) data_error("empty column name in the header", Loc{f, line, row.cols[c]});
        if (t.find(row.cells[c]) >= 0)
          data_error("column '" + row.cells[c] + "' appears twice in the header", Loc{f, line, row.cols[c]});
        t.columns.push_back(row.cells[c]);
        t.column_cols.push_back(row.cols[c]);
      }
      continue;
    }
    if (row.cells.size() != t.columns.size())
      data_error("this row has " + std::to_string(row.cells.size()) + (row.cells.size() == 1 ? " field" : " fields") +
                     ", the header " + std::to_string(t.columns.size()),
                 Loc{f, line, 1});
    t.rows.push_back(std::move(row));
  }
}

void read_table(const std::string& path, Table& t) {
  std::string error;
  SourceFileP file = read_source_file(path, error);
  if (!file) throw CompileError{Diagnostic{Severity::Error, DiagKind::IOError, {}, error, path}};
  parse_table(std::move(file), t);
  const SourceFile* f = t.file.get();
  if (t.header_line == 0) throw CompileError{Diagnostic{Severity::Error, DiagKind::DataError, {}, "no header row (an empty file)", path}};
  if (t.rows.empty()) data_error("a header but no data rows", Loc{f, t.header_line, 1});
}

}  // namespace pamc::analysis
