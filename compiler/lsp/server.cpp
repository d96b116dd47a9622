#include "compiler/lsp/server.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <list>
#include <map>
#include <set>

#include "compiler/lsp/analysis.h"
#include "compiler/lsp/queries.h"

namespace pamc::lsp {
namespace {

using Clock = std::chrono::steady_clock;
using Time = Clock::time_point;

long ms_between(Time a, Time b) { return std::chrono::duration_cast<std::chrono::milliseconds>(b - a).count(); }

// An analysis running in a child process; it writes one JSON line per part.
struct Child {
  pid_t pid = -1;
  int fd = -1;
  long generation = 0;
  Time started;
  std::string buffer;
};

struct Document {
  std::string text;
  long generation = 0;             // counts the texts the server has been given
  Json front, model;               // the latest parts, of the generation noted beside them
  long front_of = -1, model_of = -1;
  std::optional<Time> analyse_at;  // when the pending text is due for analysis (debounce)
  Child child;
  std::set<std::string> published;  // URIs this document's diagnostics went to
};

// A request waiting for an analysis part of the document's current text.
struct Waiting {
  Json id;
  std::string method;
  Json params;
  std::string uri;
  bool needs_model;
  Time deadline;
};

class Server {
 public:
  Server(const ServerOptions& options, int in_fd, int out_fd) : opt_(options), in_(in_fd), out_(out_fd) {
    absolute_paths(opt_.load);
  }

  // An analysis runs in the document's folder (its imports resolve there), so -I folders and
  // machine files named by a path are made absolute against the server's own folder first.
  static void absolute_paths(LoadOptions& load) {
    std::error_code ec;
    for (std::string& d : load.include_dirs) d = std::filesystem::absolute(d, ec).string();
    for (std::string& m : load.machines)
      if (std::filesystem::is_regular_file(m, ec)) m = std::filesystem::absolute(m, ec).string();
  }

  int run() {
    signal(SIGPIPE, SIG_IGN);  // a client that went away is seen as EOF, not a signal
    char buffer[65536];
    while (!exit_) {
      std::vector<pollfd> fds{{in_, POLLIN, 0}};
      std::vector<std::string> owners{""};
      for (auto& [uri, doc] : docs_)
        if (doc.child.fd >= 0) {
          fds.push_back({doc.child.fd, POLLIN, 0});
          owners.push_back(uri);
        }
      int n = ::poll(fds.data(), fds.size(), timeout_ms());
      if (n < 0 && errno != EINTR) return 1;
      if (n > 0 && fds[0].revents) {
        ssize_t got = ::read(in_, buffer, sizeof buffer);
        if (got <= 0) break;  // the client closed our stdin
        reader_.feed(buffer, static_cast<std::size_t>(got));
        while (auto message = reader_.next()) handle_safely(*message);
      }
      for (std::size_t k = 1; k < fds.size(); ++k)
        if (fds[k].revents && docs_.count(owners[k])) read_child(owners[k], docs_[owners[k]]);
      on_timers();
    }
    for (auto& [uri, doc] : docs_) stop_child(doc);
    return shutdown_ ? 0 : 1;
  }

 private:
  // --- the wire ---
  void send(const Json& m) { write_message(out_, m); }
  void reply(const Json& id, Json result) { send({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}}); }
  void reply_error(const Json& id, int code, const std::string& message) {
    send({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
  }
  void notify(const std::string& method, Json params) {
    send({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
  }

  // A message with the wrong shape (a field missing or of another type) is answered with
  // an error, or dropped when it is a notification; it never ends the server.
  void handle_safely(const Json& m) {
    try {
      handle(m);
    } catch (const std::exception& e) {
      if (m.is_object() && m.contains("id") && m.contains("method"))
        reply_error(m["id"], -32602, std::string("invalid params: ") + e.what());
    }
  }

  void handle(const Json& m) {
    if (!m.is_object()) {
      reply_error(nullptr, -32700, "the message is not JSON");
      return;
    }
    const std::string method = m.value("method", "");
    const Json params = m.contains("params") ? m["params"] : Json::object();
    if (!m.contains("id")) return notification(method, params);
    const Json& id = m["id"];
    if (method == "initialize") return reply(id, initialize(params));
    if (method == "shutdown") {
      shutdown_ = true;
      return reply(id, nullptr);
    }
    static const std::set<std::string> document_requests{
        "textDocument/hover",          "textDocument/definition",    "textDocument/references",
        "textDocument/completion",     "textDocument/documentSymbol", "textDocument/inlayHint"};
    if (!document_requests.count(method)) return reply_error(id, -32601, "pamc lsp does not answer " + method);
    std::string uri = params.contains("textDocument") ? params["textDocument"].value("uri", "") : "";
    if (!docs_.count(uri)) return reply_error(id, -32602, "the document is not open: " + uri);
    bool needs_model = method == "textDocument/hover" || method == "textDocument/inlayHint";
    waiting_.push_back({id, method, params, uri, needs_model, Clock::now() + std::chrono::milliseconds(opt_.budget_ms)});
    answer_ready();
  }

  Json initialize(const Json& params) {
    const Json o = params.contains("initializationOptions") && params["initializationOptions"].is_object()
                       ? params["initializationOptions"] : Json::object();
    if (o.contains("includeDirs"))
      for (const Json& d : o["includeDirs"]) opt_.load.include_dirs.push_back(d.get<std::string>());
    if (o.contains("machines"))
      for (const Json& d : o["machines"]) opt_.load.machines.push_back(d.get<std::string>());
    absolute_paths(opt_.load);
    opt_.budget_ms = o.value("timeBudgetMs", opt_.budget_ms);
    opt_.debounce_ms = o.value("debounceMs", opt_.debounce_ms);
    Json caps{{"positionEncoding", "utf-16"},
              {"textDocumentSync", {{"openClose", true}, {"change", 1}}},  // the whole text each time
              {"hoverProvider", true},
              {"definitionProvider", true},
              {"referencesProvider", true},
              {"completionProvider", Json::object()},
              {"documentSymbolProvider", true},
              {"inlayHintProvider", true}};
    return Json{{"capabilities", caps}, {"serverInfo", {{"name", "pamc"}, {"version", opt_.version}}}};
  }

  void notification(const std::string& method, const Json& params) {
    if (method == "exit") exit_ = true;
    if (method == "$/cancelRequest") {
      for (auto it = waiting_.begin(); it != waiting_.end(); ++it)
        if (it->id == params["id"]) {
          reply_error(it->id, -32800, "cancelled");
          waiting_.erase(it);
          break;
        }
    }
    if (method != "textDocument/didOpen" && method != "textDocument/didChange" && method != "textDocument/didClose") return;
    const std::string uri = params["textDocument"].value("uri", "");
    if (method == "textDocument/didClose") {
      auto it = docs_.find(uri);
      if (it == docs_.end()) return;
      stop_child(it->second);
      for (auto w = waiting_.begin(); w != waiting_.end();) {
        if (w->uri != uri) {
          ++w;
          continue;
        }
        reply(w->id, nullptr);
        w = waiting_.erase(w);
      }
      for (const std::string& u : it->second.published) notify("textDocument/publishDiagnostics", {{"uri", u}, {"diagnostics", Json::array()}});
      docs_.erase(it);
      return;
    }
    Document& doc = docs_[uri];
    if (method == "textDocument/didOpen") {
      doc.text = params["textDocument"].value("text", "");
      doc.analyse_at = Clock::now();  // at once: the file was just opened
    } else {
      const Json& changes = params["contentChanges"];
      if (changes.empty()) return;
      doc.text = changes.back().value("text", doc.text);  // full synchronization
      doc.analyse_at = Clock::now() + std::chrono::milliseconds(opt_.debounce_ms);
    }
    ++doc.generation;
    stop_child(doc);  // its text is stale
  }

  // --- analyses in child processes ---
  void start_child(const std::string& uri, Document& doc) {
    doc.analyse_at.reset();
    int pipe_fds[2];
    if (::pipe(pipe_fds) != 0) return;
    AnalysisInput input{uri, std::filesystem::absolute(uri_to_path(uri)).string(), doc.text, opt_.load};
    pid_t pid = ::fork();
    if (pid < 0) {
      ::close(pipe_fds[0]);
      ::close(pipe_fds[1]);
      return;
    }
    if (pid == 0) {
      ::close(pipe_fds[0]);
      int devnull = ::open("/dev/null", O_RDWR);
      ::dup2(devnull, 0);
      ::dup2(devnull, 1);  // stdout is the protocol's channel: nothing else may write there
      std::error_code ec;
      std::filesystem::current_path(std::filesystem::path(input.path).parent_path(), ec);  // imports resolve here
      int rc = 0;
      try {
        analyze(input, [&](const Json& part) {
          std::string line = part.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
          for (std::size_t done = 0; done < line.size();) {
            ssize_t n = ::write(pipe_fds[1], line.data() + done, line.size() - done);
            if (n <= 0) _exit(1);
            done += static_cast<std::size_t>(n);
          }
        });
      } catch (...) {
        rc = 1;
      }
      _exit(rc);
    }
    ::close(pipe_fds[1]);
    doc.child = Child{pid, pipe_fds[0], doc.generation, Clock::now(), {}};
  }

  void stop_child(Document& doc) {
    if (doc.child.pid < 0) return;
    ::kill(doc.child.pid, SIGKILL);
    ::waitpid(doc.child.pid, nullptr, 0);
    ::close(doc.child.fd);
    doc.child = Child{};
  }

  void read_child(const std::string& uri, Document& doc) {
    char buffer[65536];
    ssize_t got = ::read(doc.child.fd, buffer, sizeof buffer);
    if (got > 0) {
      // A part is one line of megabytes for a large model: look for its end in what is new.
      std::size_t from = doc.child.buffer.size();
      doc.child.buffer.append(buffer, static_cast<std::size_t>(got));
      for (std::size_t nl; (nl = doc.child.buffer.find('\n', from)) != std::string::npos; from = 0) {
        Json part = Json::parse(doc.child.buffer.substr(0, nl), nullptr, false);
        doc.child.buffer.erase(0, nl + 1);  // what is left came in this read: scanning it again is cheap
        if (part.is_object()) take_part(doc, std::move(part));
      }
      return;
    }
    // The child is done: without a model part (the front end found an error, or the
    // analysis failed), the front part is all there is for this text.
    long generation = doc.child.generation;
    int status = 0;
    ::waitpid(doc.child.pid, &status, 0);
    ::close(doc.child.fd);
    doc.child = Child{};
    if (doc.model_of == generation) return;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
      take_part(doc, Json{{"part", "model"}}, generation);
    } else {
      end_analysis(uri, doc, generation, 1, "pamc could not analyse this model (the analysis stopped unexpectedly)");
    }
  }

  // An analysis that ended without its parts (it crashed, or ran past --limit): what it
  // found, and a diagnostic saying why the rest is missing; requests waiting for it are
  // answered now, with what there is.
  void end_analysis(const std::string& uri, Document& doc, long generation, int severity, const std::string& why) {
    Json diags = doc.front_of == generation ? doc.front["diagnostics"] : Json::object();
    diags[uri].push_back(message_diagnostic(severity, why));
    if (doc.front_of != generation)
      take_part(doc, Json{{"part", "front"}, {"targets", Json::array()}, {"occurrences", Json::array()},
                          {"symbols", Json::array()}}, generation);
    take_part(doc, Json{{"part", "model"}, {"diagnostics", diags}}, generation);
  }

  static Json message_diagnostic(int severity, const std::string& message) {
    return Json{{"range", range(0, 0, 0, 0)}, {"severity", severity}, {"source", "pamc"}, {"message", message}};
  }

  void take_part(Document& doc, Json part, long generation = -1) {
    if (generation < 0) generation = doc.child.generation;
    if (generation != doc.generation) return;
    if (part.contains("diagnostics")) publish(doc, part["diagnostics"]);
    if (part["part"] == "front") {
      doc.front = std::move(part);
      doc.front_of = generation;
    } else {
      doc.model = std::move(part);
      doc.model_of = generation;
    }
    answer_ready();
  }

  void publish(Document& doc, const Json& by_uri) {
    std::set<std::string> now;
    for (auto& [u, list] : by_uri.items()) {
      notify("textDocument/publishDiagnostics", {{"uri", u}, {"diagnostics", list}});
      now.insert(u);
    }
    for (const std::string& u : doc.published)
      if (!now.count(u)) notify("textDocument/publishDiagnostics", {{"uri", u}, {"diagnostics", Json::array()}});
    doc.published = now;
  }

  // --- time ---
  int timeout_ms() const {
    Time now = Clock::now();
    long best = 1000;
    auto consider = [&](Time t) { best = std::min(best, std::max(0L, ms_between(now, t) + 1)); };
    for (const auto& [uri, doc] : docs_) {
      if (doc.analyse_at) consider(*doc.analyse_at);
      if (doc.child.pid >= 0) consider(doc.child.started + std::chrono::milliseconds(opt_.limit_ms));
    }
    for (const Waiting& w : waiting_) consider(w.deadline);
    return static_cast<int>(best);
  }

  void on_timers() {
    Time now = Clock::now();
    for (auto& [uri, doc] : docs_) {
      if (doc.analyse_at && *doc.analyse_at <= now && doc.child.pid < 0) start_child(uri, doc);
      if (doc.child.pid >= 0 && ms_between(doc.child.started, now) >= opt_.limit_ms) {
        long generation = doc.child.generation;
        stop_child(doc);
        end_analysis(uri, doc, generation, 3,
                     "pamc stopped analysing this model after " + std::to_string(opt_.limit_ms / 1000) +
                         " s (pamc lsp --limit): no closed forms or values are shown for it; `pamc compile` runs without a limit");
      }
    }
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      if (it->deadline > now) {
        ++it;
        continue;
      }
      answer(*it, true);
      it = waiting_.erase(it);
    }
  }

  // --- requests ---
  void answer_ready() {
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      const Document& doc = docs_[it->uri];
      bool ready = doc.front_of == doc.generation && (!it->needs_model || doc.model_of == doc.generation);
      // Completion goes with the names the last analysis knew: typing must not wait.
      ready = ready || (it->method == "textDocument/completion" && doc.front_of >= 0);
      if (!ready) {
        ++it;
        continue;
      }
      answer(*it, false);
      it = waiting_.erase(it);
    }
  }

  void answer(const Waiting& w, bool late) {
    try {
      answer_unsafe(w, late);
    } catch (const std::exception& e) {
      reply_error(w.id, -32602, std::string("invalid params: ") + e.what());
    }
  }

  void answer_unsafe(const Waiting& w, bool late) {
    const Document& doc = docs_[w.uri];
    // Late: what the last analysis said (positions may have moved), and for a hover, why
    // there is nothing newer.
    static const Json none;
    Snapshot s{w.uri, doc.text, doc.front_of >= 0 ? doc.front : none, doc.model_of >= 0 ? doc.model : none};
    const Json pos = w.params.contains("position") ? w.params["position"] : Json::object();
    const std::string& m = w.method;
    if (m == "textDocument/hover") {
      if (late) {
        std::string what = doc.front_of == doc.generation ? "simplifying" : "reading";
        return reply(w.id, Json{{"contents", {{"kind", "markdown"},
                                              {"value", "pamc is still " + what + " this model (more than " +
                                                            std::to_string(opt_.budget_ms) +
                                                            " ms so far); hover again when it is done."}}}});
      }
      return reply(w.id, hover(s, pos));
    }
    if (m == "textDocument/definition") return reply(w.id, definition(s, pos));
    if (m == "textDocument/references") {
      bool decl = w.params.contains("context") && w.params["context"].value("includeDeclaration", false);
      return reply(w.id, references(s, pos, decl));
    }
    if (m == "textDocument/completion") return reply(w.id, completion(s, pos));
    if (m == "textDocument/documentSymbol") return reply(w.id, document_symbols(s));
    if (m == "textDocument/inlayHint") return reply(w.id, late ? Json::array() : inlay_hints(s, w.params.value("range", Json())));
  }

  ServerOptions opt_;
  int in_, out_;
  MessageReader reader_;
  std::map<std::string, Document> docs_;
  std::list<Waiting> waiting_;
  bool shutdown_ = false, exit_ = false;
};

}  // namespace

int run_server(const ServerOptions& options, int in_fd, int out_fd) { return Server(options, in_fd, out_fd).run(); }

}  // namespace pamc::lsp
