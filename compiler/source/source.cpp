#include "compiler/source/source.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace pamc {

SourceFile::SourceFile(std::string p, std::string t) : path(std::move(p)), text(std::move(t)) {
  line_starts.push_back(0);
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') line_starts.push_back(i + 1);
}

std::string_view SourceFile::line_text(std::uint32_t line) const {
  if (line == 0 || line > line_starts.size()) return {};
  std::size_t begin = line_starts[line - 1];
  std::size_t end = line < line_starts.size() ? line_starts[line] - 1 : text.size();
  if (end > begin && text[end - 1] == '\r') --end;
  return std::string_view(text).substr(begin, end - begin);
}

// A model is a regular file of at most kMaxSourceBytes: a directory is refused, and a
// device or FIFO (/dev/zero, a pipe nobody writes) is refused before it is opened, so
// reading can neither hang nor run out of memory.
constexpr std::uintmax_t kMaxSourceBytes = 64u << 20;

SourceFileP read_source_file(const std::string& path, std::string& error) {
  std::error_code ec;
  auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    error = "cannot open '" + path + "'";
    return nullptr;
  }
  if (std::filesystem::is_directory(status)) {
    error = "'" + path + "' is a directory, not a model file";
    return nullptr;
  }
  if (!std::filesystem::is_regular_file(status)) {
    error = "'" + path + "' is not a regular file (a device, FIFO or socket)";
    return nullptr;
  }
  if (std::filesystem::file_size(path, ec) > kMaxSourceBytes || ec) {
    error = "'" + path + "' is larger than 64 MB, the limit for a model file";
    return nullptr;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open '" + path + "'";
    return nullptr;
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) {
    error = "cannot read '" + path + "'";
    return nullptr;
  }
  return std::make_shared<SourceFile>(path, buf.str());
}

}  // namespace pamc
