// Source buffers and locations. A SourceFile owns a model's text and knows where each line
// starts, so a diagnostic can print the line and a caret under the column.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace pamc {

struct SourceFile {
  std::string path;   // as given by the user or resolved by import
  std::string text;
  std::vector<std::size_t> line_starts;  // byte offset of each line, line 1 at index 0

  SourceFile(std::string path, std::string text);
  // Text of line `line` (1-based), without its newline; empty when out of range.
  std::string_view line_text(std::uint32_t line) const;
};

using SourceFileP = std::shared_ptr<const SourceFile>;

// Reads a file; returns nullptr (and leaves `error` set) when it cannot be read.
SourceFileP read_source_file(const std::string& path, std::string& error);

// A position in a source file: line and column are 1-based; column counts bytes.
struct Loc {
  const SourceFile* file = nullptr;
  std::uint32_t line = 0;
  std::uint32_t col = 0;
  bool valid() const { return file != nullptr && line > 0; }
};

}  // namespace pamc
