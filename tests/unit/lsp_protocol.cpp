// The language server's wire and coordinates (compiler/lsp/protocol.h): framing that
// arrives in pieces, file URIs, and UTF-16 columns against pamc's byte columns.
#include <doctest/doctest.h>

#include <string>

#include "compiler/lsp/protocol.h"

using namespace pamc::lsp;

TEST_CASE("framed messages arrive whole, in pieces or two at once") {
  MessageReader r;
  std::string a = R"({"id":1,"method":"initialize"})", b = R"({"method":"exit"})";
  std::string wire = "Content-Length: " + std::to_string(a.size()) + "\r\n\r\n" + a + "content-length: " +
                     std::to_string(b.size()) + "\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + b;
  r.feed(wire.data(), 10);
  CHECK(!r.next());
  r.feed(wire.data() + 10, wire.size() - 10);
  auto first = r.next(), second = r.next();
  REQUIRE(first);
  REQUIRE(second);
  CHECK((*first)["method"] == "initialize");
  CHECK((*second)["method"] == "exit");
  CHECK(!r.next());
}

TEST_CASE("a body that is not JSON comes back as its text, and the stream goes on") {
  MessageReader r;
  std::string wire = "Content-Length: 5\r\n\r\n{nope" + std::string("Content-Length: 2\r\n\r\n{}");
  r.feed(wire.data(), wire.size());
  auto bad = r.next();
  REQUIRE(bad);
  CHECK(bad->is_string());
  auto good = r.next();
  REQUIRE(good);
  CHECK(good->is_object());
}

TEST_CASE("file URIs and paths, percent-encoded both ways") {
  CHECK(path_to_uri("/tmp/a b/m\u00e9.pam") == "file:///tmp/a%20b/m%C3%A9.pam");
  CHECK(uri_to_path("file:///tmp/a%20b/m%C3%A9.pam") == "/tmp/a b/m\u00e9.pam");
  CHECK(uri_to_path(path_to_uri("/x/100%/y.pam")) == "/x/100%/y.pam");
}

TEST_CASE("UTF-16 columns: two bytes of e-acute are one unit, an emoji's four bytes two") {
  const std::string line = "% \u00e9\U0001F600 x";  // bytes: '%',' ',C3 A9,F0 9F 98 80,' ','x'
  CHECK(utf16_column(line, 0) == 0);
  CHECK(utf16_column(line, 4) == 3);   // after the e-acute
  CHECK(utf16_column(line, 8) == 5);   // after the emoji
  CHECK(utf16_column(line, 9) == 6);   // 'x'
  CHECK(byte_column(line, 6) == 9);
  CHECK(byte_column(line, 3) == 4);
  CHECK(byte_column(line, 100) == line.size() + 100 - 7);  // past the end: one byte a unit
  CHECK(line_of("a\r\nbc\nd", 1) == "bc");
  CHECK(line_of("a\r\nbc\nd", 0) == "a");
  CHECK(line_of("a\nb", 5).empty());
}
