#include "compiler/lsp/protocol.h"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>

namespace pamc::lsp {

std::optional<Json> MessageReader::next() {
  for (;;) {
    std::size_t end = buffer_.find("\r\n\r\n");
    if (end == std::string::npos) return std::nullopt;
    // Header fields, case-insensitively; only Content-Length matters.
    long length = -1;
    std::size_t at = 0;
    while (at < end) {
      std::size_t eol = buffer_.find("\r\n", at);
      if (eol == std::string::npos || eol > end) eol = end;
      std::string field = buffer_.substr(at, eol - at);
      std::string lower;
      for (char c : field) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (lower.rfind("content-length:", 0) == 0) length = std::strtol(field.c_str() + 15, nullptr, 10);
      at = eol + 2;
    }
    if (length < 0) {  // a header with no length: drop it, a client cannot mean anything by it
      buffer_.erase(0, end + 4);
      continue;
    }
    if (buffer_.size() < end + 4 + static_cast<std::size_t>(length)) return std::nullopt;
    std::string body = buffer_.substr(end + 4, static_cast<std::size_t>(length));
    buffer_.erase(0, end + 4 + static_cast<std::size_t>(length));
    Json message = Json::parse(body, nullptr, false);
    if (message.is_discarded()) return Json(body);
    return message;
  }
}

void write_message(int fd, const Json& message) {
  std::string body = message.dump(-1, ' ', false, Json::error_handler_t::replace);
  std::string out = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  std::size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::write(fd, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the client is gone; the read side will see it and stop
    done += static_cast<std::size_t>(n);
  }
}

std::string uri_to_path(const std::string& uri) {
  std::string rest = uri.rfind("file://", 0) == 0 ? uri.substr(7) : uri;
  std::string out;
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size() && std::isxdigit(static_cast<unsigned char>(rest[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(rest[i + 2]))) {
      out += static_cast<char>(std::stoi(rest.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += rest[i];
    }
  }
  return out;
}

std::string path_to_uri(const std::string& path) {
  std::string out = "file://";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      out += hex;
    }
  }
  return out;
}

// A UTF-8 lead byte's sequence length (a stray continuation byte counts as one).
static std::size_t sequence_length(unsigned char c) {
  if (c >= 0xF0) return 4;
  if (c >= 0xE0) return 3;
  if (c >= 0xC0) return 2;
  return 1;
}

std::size_t utf16_column(std::string_view line, std::size_t byte_col) {
  std::size_t units = 0;
  for (std::size_t i = 0; i < byte_col && i < line.size();) {
    std::size_t n = sequence_length(static_cast<unsigned char>(line[i]));
    units += n == 4 ? 2 : 1;  // beyond the basic plane: a surrogate pair
    i += n;
  }
  if (byte_col > line.size()) units += byte_col - line.size();
  return units;
}

std::size_t byte_column(std::string_view line, std::size_t utf16_col) {
  std::size_t units = 0, i = 0;
  while (i < line.size() && units < utf16_col) {
    std::size_t n = sequence_length(static_cast<unsigned char>(line[i]));
    units += n == 4 ? 2 : 1;
    i += n;
  }
  return std::min(i, line.size()) + (utf16_col > units ? utf16_col - units : 0);
}

std::string_view line_of(std::string_view text, std::size_t line) {
  std::size_t start = 0;
  for (std::size_t k = 0; k < line; ++k) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) return {};
    start = nl + 1;
  }
  std::size_t nl = text.find('\n', start);
  std::string_view out = text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
  if (!out.empty() && out.back() == '\r') out.remove_suffix(1);
  return out;
}

Json position(std::size_t line, std::size_t character) { return Json{{"line", line}, {"character", character}}; }

Json range(std::size_t line, std::size_t start, std::size_t end_line, std::size_t end) {
  return Json{{"start", position(line, start)}, {"end", position(end_line, end)}};
}

}  // namespace pamc::lsp
