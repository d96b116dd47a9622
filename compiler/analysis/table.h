// A CSV table of text cells that remembers where each cell came from, so the analyses
// (projection.h, predictability.h) can point a data error at its file, row and column.
// Header row of column names, then rows; blank lines and lines starting with '#' are
// skipped; fields may be double-quoted; spaces around a field are ignored.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/diag/diag.h"
#include "compiler/source/source.h"

namespace pamc::analysis {

struct Table {
  SourceFileP file;  // keep alive until any diagnostic that points into it is rendered
  std::vector<std::string> columns;
  std::vector<std::uint32_t> column_cols;  // byte column of each header name
  std::uint32_t header_line = 0;
  struct Row {
    std::uint32_t line = 0;
    std::vector<std::string> cells;
    std::vector<std::uint32_t> cols;  // byte column where each cell starts
  };
  std::vector<Row> rows;

  // Index of a column, or -1.
  int find(const std::string& name) const;
  // Index of a column that must exist; else a DataError at the header.
  std::size_t require(const std::string& name) const;
  // A cell as a finite double; else a DataError naming row, column and the text.
  double number(const Row& row, std::size_t column) const;
  Loc where(const Row& row, std::size_t column) const { return Loc{file.get(), row.line, row.cols[column]}; }
  Loc header_loc(std::size_t column) const { return Loc{file.get(), header_line, column_cols[column]}; }
};

// pamc's one CSV reader. Splits a file already read into the header and rows of text
// cells; throws a DataError on a repeated or empty column name, a ragged row or a bad
// quote. A file with no header leaves t.header_line 0, one with no rows t.rows empty: what
// that means is the caller's to say (read_table below, fit's parse_fit_data).
void parse_table(SourceFileP file, Table& t);

// Fills `t` (which keeps the file alive for the diagnostic) or throws CompileError
// (DataError, IOError) on a file that cannot be read, a missing header, a repeated or empty
// column name, a ragged row, no data rows.
void read_table(const std::string& path, Table& t);

[[noreturn]] void data_error(const std::string& message, Loc loc);

}  // namespace pamc::analysis
