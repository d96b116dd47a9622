// The answers to the editor's questions, read off an analysis (analysis.h) of the document:
// no GiNaC, no parsing, so the event loop answers in microseconds.
#pragma once
#include <string>

#include "compiler/lsp/protocol.h"

namespace pamc::lsp {

// What one request sees: the document's URI and text, and its latest analysis parts
// (null when there is none).
struct Snapshot {
  const std::string& uri;
  const std::string& text;
  const Json& front;
  const Json& model;
};

Json hover(const Snapshot& s, const Json& pos);
Json definition(const Snapshot& s, const Json& pos);
Json references(const Snapshot& s, const Json& pos, bool include_declaration);
Json completion(const Snapshot& s, const Json& pos);
Json document_symbols(const Snapshot& s);
Json inlay_hints(const Snapshot& s, const Json& range);

}  // namespace pamc::lsp
