// `pamc lsp`: a Language Server Protocol server over stdin and stdout (docs/editors.md).
//
// One thread runs an event loop over the client's messages and the analyses. Each version
// of a document is analysed (analysis.h) in a forked child process, after the edits pause
// for `debounce_ms`: an edit that arrives meanwhile kills the stale child (so a model that
// takes long to simplify never holds up the next keystroke's answer), and a crash in the
// simplifier cannot take the server down. A request that needs an analysis still running
// waits at most `budget_ms` and is then answered with a message saying so; a child still
// simplifying after `limit_ms` is stopped, with a diagnostic saying why.
#pragma once
#include <string>

#include "compiler/check/check.h"

namespace pamc::lsp {

struct ServerOptions {
  LoadOptions load;        // -I and --machine, as for every command (the client may add more)
  long debounce_ms = 200;  // quiet time after an edit before it is analysed
  long budget_ms = 2000;   // the longest a request waits for an analysis
  long limit_ms = 60000;   // the longest one analysis may run
  std::string version;     // pamc's, for serverInfo
};

// Serves until the client sends `exit`, or closes stdin; returns the exit status (0 after
// a shutdown request, 1 otherwise, as the protocol asks).
int run_server(const ServerOptions& options, int in_fd = 0, int out_fd = 1);

}  // namespace pamc::lsp
