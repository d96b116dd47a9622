// The wire and the coordinates of the Language Server Protocol: JSON-RPC messages framed by
// a Content-Length header, file URIs, and positions. LSP counts a position's character in
// UTF-16 code units; pamc's locations count bytes (compiler/source), so every position
// crossing the wire is converted against its line's text.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "compiler/support/json.h"

namespace pamc::lsp {

using Json = nlohmann::json;  // the protocol's own order of keys does not matter

// Reads framed messages from a byte stream that arrives in pieces (a non-blocking pipe).
class MessageReader {
 public:
  void feed(const char* data, std::size_t n) { buffer_.append(data, n); }
  // The next whole message, if one has arrived. A body that is not JSON is returned as a
  // JSON string holding the text (the server answers it with a parse error).
  std::optional<Json> next();

 private:
  std::string buffer_;
};

// Writes one framed message to the file descriptor (blocking until it is all written).
void write_message(int fd, const Json& message);

// file:///a/b%20c.pam <-> /a/b c.pam (only file URIs name something pamc can read).
std::string uri_to_path(const std::string& uri);
std::string path_to_uri(const std::string& path);

// Byte column (0-based) <-> UTF-16 column (0-based) within one line of text.
std::size_t utf16_column(std::string_view line, std::size_t byte_col);
std::size_t byte_column(std::string_view line, std::size_t utf16_col);

// Line `line` (0-based) of text, without its newline; empty past the end.
std::string_view line_of(std::string_view text, std::size_t line);

// {"line": l, "character": c} and {"start": ..., "end": ...}.
Json position(std::size_t line, std::size_t character);
Json range(std::size_t line, std::size_t start, std::size_t end_line, std::size_t end);

}  // namespace pamc::lsp
