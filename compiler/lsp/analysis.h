// What the language server knows about one version of a document, computed by the same
// front end and simplifier as the command line (compile_text). It runs in a child process
// (server.cpp), so everything it finds leaves as JSON, in two parts:
//
//   front (after loading and checking, fast):
//     diagnostics  {uri: [LSP Diagnostic]}    errors and warnings, kinds as codes
//     targets      [{name, kind, uri, range, scope?, detail}]  every declaration, formal
//                  and loop index of the model and its imports (stdlib, machine files)
//     occurrences  [{uri, range, target}]     every name that refers to a target
//     symbols      [LSP DocumentSymbol]        the outline of the main file
//   model (after simplifying, may take long):
//     diagnostics  as above, for the whole pipeline
//     hovers       {target index: markdown}   closed forms in the model's names, the value
//                  at the defaults, facts, assumptions, why a loop stays open
//     loops        [{uri, range, text}]       each loop keyword, and what became of it
//     hints        [{position, label}]        each top-level equation's value at the defaults
#pragma once
#include <functional>
#include <string>

#include "compiler/check/check.h"
#include "compiler/lsp/protocol.h"

namespace pamc::lsp {

struct AnalysisInput {
  std::string uri;   // the document as the client names it
  std::string path;  // its file (imports resolve against its folder)
  std::string text;  // the editor's text, saved or not
  LoadOptions load;
};

// Sends the front part, then the model part (unless the front end found an error).
void analyze(const AnalysisInput& input, const std::function<void(const Json&)>& send);

// Pamela's keywords, for completion.
const std::vector<std::string>& keywords();

}  // namespace pamc::lsp
