// pamc lsp: the language server (compiler/lsp/server.h; docs/editors.md).
#include "compiler/driver/subcommand.h"
#include "compiler/lsp/server.h"

namespace pamc {
namespace {

void options(po::options_description& d) {
  d.add_options()
      ("debounce", po::value<long>()->default_value(200), "MS of quiet after an edit before it is analysed")
      ("time-budget", po::value<long>()->default_value(2000), "MS a request waits for an analysis before it is answered with a message")
      ("limit", po::value<long>()->default_value(60), "S one analysis may run before it is stopped");
}

int run(const CommandLine& line) {
  if (!line.file.empty()) throw usage_error("lsp: takes no FILE (the editor sends the documents it opens)");
  lsp::ServerOptions o;
  o.load = line.load();
  o.debounce_ms = line.vm["debounce"].as<long>();
  o.budget_ms = line.vm["time-budget"].as<long>();
  o.limit_ms = line.vm["limit"].as<long>() * 1000;
  if (o.debounce_ms < 0 || o.budget_ms < 0 || o.limit_ms <= 0)
    throw usage_error("lsp: --debounce and --time-budget take milliseconds >= 0, --limit seconds > 0");
  o.version = PAMC_VERSION;
  return lsp::run_server(o);
}

}  // namespace

extern const Subcommand lsp_command{
    "lsp", "serve the Language Server Protocol on stdin and stdout (for editors)",
    "[--debounce MS] [--time-budget MS] [--limit S]", options, run, false};

}  // namespace pamc
