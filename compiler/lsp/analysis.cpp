#include "compiler/lsp/analysis.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>

#include "compiler/evaluate/evaluate_model.h"
#include "compiler/parse/parse.h"
#include "compiler/passes/pipeline.h"
#include "compiler/symbolic/class_test.h"
#include "compiler/symbolic/open_reason.h"
#include "compiler/symbolic/symbolic.h"

namespace pamc::lsp {
namespace {

namespace fs = std::filesystem;

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A declaration, formal or loop index a name can refer to.
struct Target {
  std::string name;
  std::string kind;  // parameter, numeric, process, resource, formal, index
  Loc loc;           // where its name is written
  const ast::Decl* decl = nullptr;  // the declaration (for a formal or index: the one around it)
  std::string detail;
};

struct Occurrence {
  Loc loc;
  std::size_t length;
  std::size_t target;
};

class Locations {
 public:
  Locations(const AnalysisInput& input, const SourceFile* main) : input_(input), main_(main) {}

  // The main file is the document as the client names it (in the checked program and in
  // the second compilation alike: they read the same path); an imported file by its
  // absolute path, symbolic links kept, as the user wrote them.
  std::string uri(const SourceFile* file) const {
    if (!file || file == main_ || file->path == input_.path) return input_.uri;
    std::error_code ec;
    return path_to_uri(fs::absolute(file->path, ec).lexically_normal().string());
  }
  // The range of `length` bytes at loc (1-based line and byte column).
  Json range_at(const Loc& loc, std::size_t length) const {
    if (!loc.valid()) return range(0, 0, 0, 0);
    std::string_view line = loc.file->line_text(loc.line);
    std::size_t col = loc.col - 1;
    return range(loc.line - 1, utf16_column(line, col), loc.line - 1, utf16_column(line, col + length));
  }
  // The word at loc (a name or keyword), or one character.
  Json word_at(const Loc& loc) const {
    if (!loc.valid()) return range(0, 0, 0, 0);
    std::string_view line = loc.file->line_text(loc.line);
    std::size_t col = loc.col - 1, end = col;
    while (end < line.size() && is_name_char(line[end])) ++end;
    return range_at(loc, std::max<std::size_t>(end - col, 1));
  }
  // From loc to the end of line `last_line` of its file.
  Json span(const Loc& loc, std::uint32_t last_line) const {
    std::string_view first = loc.file->line_text(loc.line), last = loc.file->line_text(last_line);
    return range(loc.line - 1, utf16_column(first, loc.col - 1), last_line - 1, utf16_column(last, last.size()));
  }

 private:
  const AnalysisInput& input_;
  const SourceFile* main_;
};

// Diagnostics grouped by file; a note becomes related information of the one before it.
Json diagnostics_json(const Diagnostics& diags, const Locations& at, const std::string& main_uri) {
  Json out = Json::object();
  out[main_uri] = Json::array();
  Json* last = nullptr;
  for (const Diagnostic& d : diags.all()) {
    std::string uri = d.loc.valid() ? at.uri(d.loc.file) : main_uri;
    Json place = at.word_at(d.loc);
    std::string message = d.message;
    if (!d.loc.valid() && !d.file_name.empty()) message = d.file_name + ": " + message;
    if (d.severity == Severity::Note) {
      if (last) (*last)["relatedInformation"].push_back({{"location", {{"uri", uri}, {"range", place}}}, {"message", message}});
      continue;
    }
    Json j{{"range", place},
           {"severity", d.severity == Severity::Error ? 1 : 2},
           {"code", diag_kind_name(d.kind)},
           {"source", "pamc"},
           {"message", message}};
    out[uri].push_back(j);
    last = &out[uri].back();
  }
  return out;
}

// The last line any node of the declaration is written on.
std::uint32_t last_line(const ast::NodeP& n, std::uint32_t line) {
  if (!n) return line;
  if (n->loc.valid()) line = std::max(line, n->loc.line);
  for (const ast::NodeP& k : n->kids) line = last_line(k, line);
  return line;
}
std::uint32_t last_line(const ast::Decl& d) {
  std::uint32_t line = std::max(d.loc.line, d.name_loc.line);
  line = last_line(d.body, line);
  for (const ast::Bound& b : d.bounds) line = last_line(b.value, line);
  return line;
}

// The last line of each declaration of a module: its last node's line, or further down to
// the last line of text before the next declaration (a closing brace, a trailing comment
// excepted), so an outline covers what the user wrote.
std::map<const ast::Decl*, std::uint32_t> end_lines(const ast::Module& m) {
  std::map<const ast::Decl*, std::uint32_t> out;
  for (std::size_t k = 0; k < m.decls.size(); ++k) {
    const ast::Decl& d = m.decls[k];
    std::uint32_t end = last_line(d);
    if (d.loc.valid()) {
      std::uint32_t next = k + 1 < m.decls.size() && m.decls[k + 1].loc.valid() ? m.decls[k + 1].loc.line
                                                                                : static_cast<std::uint32_t>(d.loc.file->line_starts.size() + 1);
      for (std::uint32_t line = next - 1; line > end; --line) {
        std::string_view text = d.loc.file->line_text(line);
        std::size_t first = text.find_first_not_of(" \t\r");
        if (first != std::string_view::npos && text[first] != '%') {
          end = line;
          break;
        }
      }
    }
    out[&d] = end;
  }
  return out;
}

std::string decl_kind(const ast::Decl& d) {
  if (d.type == ast::Type::Process) return "process";
  if (d.type == ast::Type::Resource) return "resource";
  return d.is_parameter ? "parameter" : "numeric";
}

// Where loop index `name` is written in a loop that starts at loc: `seq (i = ...`.
Loc index_loc(const Loc& loc, const std::string& name) {
  if (!loc.valid()) return loc;
  std::string_view line = loc.file->line_text(loc.line);
  for (std::size_t at = line.find(name, loc.col - 1); at != std::string_view::npos; at = line.find(name, at + 1)) {
    bool starts = at == 0 || !is_name_char(line[at - 1]);
    bool ends = at + name.size() >= line.size() || !is_name_char(line[at + name.size()]);
    if (starts && ends) return Loc{loc.file, loc.line, static_cast<std::uint32_t>(at + 1)};
  }
  return loc;
}

// Collects the targets and the names that refer to them.
class Resolver {
 public:
  std::vector<Target> targets;
  std::vector<Occurrence> occurrences;
  std::map<const ast::Decl*, std::size_t> decl_target;

  void declare(const ast::Decl& d) {
    decl_target[&d] = targets.size();
    targets.push_back({d.name, decl_kind(d), d.name_loc, &d, ast::print_decl(d)});
  }

  void resolve(const ast::Decl& d, const std::map<std::string, const ast::Decl*>& globals) {
    globals_ = &globals;
    decl_ = &d;
    std::vector<std::pair<std::string, std::size_t>> scope;
    if (decl_target.count(&d)) occurrences.push_back({d.name_loc, ast::split_counter_name(d.name).second.size(), decl_target[&d]});
    for (std::size_t k = 0; k < d.formals.size(); ++k) {
      Loc at = k < d.formal_locs.size() ? d.formal_locs[k] : d.name_loc;
      scope.push_back({d.formals[k], add_local(d.formals[k], "formal", at)});
    }
    for (const ast::Bound& b : d.bounds) walk(b.value, scope);
    walk(d.body, scope);
  }

 private:
  std::size_t add_local(const std::string& name, const std::string& kind, const Loc& at) {
    std::size_t id = targets.size();
    std::string detail = kind == "formal" ? "formal " + name + " of " + decl_->name : "loop index " + name + " in " + decl_->name;
    targets.push_back({name, kind, at, decl_, detail});
    occurrences.push_back({at, name.size(), id});
    return id;
  }

  void refer(const ast::NodeP& n, const std::vector<std::pair<std::string, std::size_t>>& scope) {
    for (auto it = scope.rbegin(); it != scope.rend(); ++it)
      if (it->first == n->name) {
        occurrences.push_back({n->loc, n->name.size(), it->second});
        return;
      }
    auto g = globals_->find(n->name);
    if (g == globals_->end()) return;  // a builtin function, fcfs, or a name the checker reports
    auto t = decl_target.find(g->second);
    if (t != decl_target.end()) occurrences.push_back({n->loc, n->name.size(), t->second});
  }

  void walk(const ast::NodeP& n, std::vector<std::pair<std::string, std::size_t>>& scope) {
    if (!n) return;
    using ast::Kind;
    if (n->kind == Kind::Name || n->kind == Kind::Call) refer(n, scope);
    bool loop = n->kind == Kind::Reduce || n->kind == Kind::SeqLoop || n->kind == Kind::ParLoop;
    if (loop && n->kids.size() == 3) {
      walk(n->kids[0], scope);
      walk(n->kids[1], scope);
      scope.push_back({n->name, add_local(n->name, "index", index_loc(n->loc, n->name))});
      walk(n->kids[2], scope);
      scope.pop_back();
      return;
    }
    for (const ast::NodeP& k : n->kids) walk(k, scope);
  }

  const std::map<std::string, const ast::Decl*>* globals_ = nullptr;
  const ast::Decl* decl_ = nullptr;
};

int symbol_kind(const std::string& kind, const ast::Decl& d) {
  if (!d.region.empty()) return 8;                             // Field: a region counter
  if (kind == "resource") return 19;                           // Object
  if (kind == "process" || !d.formals.empty()) return 12;      // Function
  if (kind == "parameter") return 26;                          // TypeParameter
  return 13;                                                   // Variable
}

// The names a loop left open in `value` was written with, and why it stayed open.
void open_loops(const GiNaC::ex& e, std::vector<GiNaC::ex>& out) {
  if (sym::is_class<sym::reduction>(e)) {
    out.push_back(e);
    return;
  }
  for (std::size_t k = 0; k < e.nops(); ++k) open_loops(e.op(k), out);
}

std::string reduce_word(sym::ReduceKind k) {
  return k == sym::ReduceKind::Sum ? "sum" : k == sym::ReduceKind::Max ? "max" : "min";
}

std::string code_block(const std::string& text) { return "```pamela\n" + text + "\n```\n"; }

// What the model part says about the main file, given the compiled model.
struct ModelFacts {
  std::map<std::string, std::string> values;  // top-level equation -> value at the defaults
  std::map<std::string, std::string> why;     // equation -> its open loops, one line each
  std::string model_lines;                    // `% from the model` and `% assumes` lines
};

ModelFacts model_facts(const CostModel& model) {
  ModelFacts f;
  if (!model.assumptions.from_model.empty()) {
    f.model_lines += "% from the model:";
    for (std::size_t k = 0; k < model.assumptions.from_model.size(); ++k)
      f.model_lines += (k ? ", " : " ") + model.assumptions.from_model[k];
    f.model_lines += "\n";
  }
  for (const std::string& a : model.assumptions.items) f.model_lines += "% assumes " + a + "\n";
  for (const CostEquation& e : model.equations) {
    std::vector<GiNaC::ex> reds;
    open_loops(e.value, reds);
    std::set<std::string> seen;
    for (const GiNaC::ex& x : reds) {
      const auto& r = GiNaC::ex_to<sym::reduction>(x);
      std::string where;
      for (const LoopSite& l : model.loops)
        if (l.index.is_equal(r.index()) && l.loc.valid()) {
          where = " (line " + std::to_string(l.loc.line) + ")";
          break;
        }
      std::string line = "open: " + reduce_word(r.kind()) + " over " + r.index().get_name() + where + ": " +
                         sym::why_open(x, model.facts);
      if (seen.insert(line).second) f.why[e.name] += line + "\n";
    }
  }
  // The values at the defaults, as `pamc eval` gives them: the equations whose parameters
  // all have defaults, in one evaluation; one by one when one of them has no value there.
  GiNaC::exmap defaults;
  try {
    defaults = bind_parameters(model, {});
  } catch (const CompileError&) {
    return f;  // a default outside its bounds: no values
  }
  EvalRequest request;
  request.max_terms = 1e7;  // a value at the defaults is a hint: never worth seconds
  for (const CostEquation& e : model.equations) {
    bool bound = e.top_level;
    for (const CostParameter& p : model.parameters) bound = bound && (defaults.count(p.symbol) || !e.time_value.has(p.symbol));
    if (bound) request.targets.push_back(e.name);
  }
  if (request.targets.empty()) return f;
  auto evaluate = [&](const EvalRequest& r) {
    for (const auto& [name, value] : evaluate_model(model, r).values) f.values[name] = format_value(value);
  };
  try {
    evaluate(request);
  } catch (const CompileError&) {
    if (request.targets.size() > 200) return f;
    for (const std::string& name : request.targets) {
      EvalRequest one = request;
      one.targets = {name};
      try {
        evaluate(one);
      } catch (const CompileError&) {
        // no value at the defaults: no hint
      }
    }
  }
  return f;
}

// The equation a declaration is: T_L for process L, the numeric's own name otherwise.
const CostEquation* equation_of(const std::map<std::string, const CostEquation*>& equations, const ast::Decl& d) {
  std::string name = d.type == ast::Type::Process ? "T_" + d.name : d.is_parameter ? "" : d.name;
  auto it = equations.find(name);
  return it == equations.end() ? nullptr : it->second;
}

std::string hover_text(const Target& t, const std::map<std::string, const CostEquation*>& equations, const ModelFacts& f) {
  std::string out;
  if (t.kind == "formal" || t.kind == "index") return t.detail;
  const ast::Decl& d = *t.decl;
  const CostEquation* e = equation_of(equations, d);
  if (e) {
    out += code_block(e->name + " = " + sym::to_pamela(e->value));
    auto v = f.values.find(e->name);
    if (v != f.values.end()) out += "\n= " + v->second + " at the parameters' defaults\n";
    auto w = f.why.find(e->name);
    if (w != f.why.end()) out += "\n" + w->second;
  } else {
    out += code_block(ast::print_decl(d));
  }
  if (!f.model_lines.empty()) out += "\n" + f.model_lines;
  return out;
}

}  // namespace

const std::vector<std::string>& keywords() {
  static const std::vector<std::string> words{"import", "numeric", "process", "resource", "parameter", "region",
                                              "seq",    "par",     "if",      "else",     "delay",     "use",
                                              "sum",    "max",     "min",     "mod",      "div",       "and",
                                              "or",     "not",     "fcfs"};
  return words;
}

void analyze(const AnalysisInput& input, const std::function<void(const Json&)>& send) {
  Diagnostics diags;
  auto comp = compile_text(input.path, input.text, input.load, Stage::Parsed, diags);
  // Without a checked program (an error), the main file alone still gives an outline and
  // its own names.
  ast::Module alone;
  std::vector<const ast::Module*> modules;
  const SourceFile* main = nullptr;
  std::map<std::string, const ast::Decl*> globals;
  if (comp) {
    for (const ast::Module& m : comp->program->modules) modules.push_back(&m);
    main = comp->program->main_file.get();
    globals = comp->program->by_name;
  } else {
    Diagnostics ignored;
    alone = parse_module(std::make_shared<SourceFile>(input.path, input.text), ignored);
    modules.push_back(&alone);
    main = alone.file.get();
    for (const ast::Decl& d : alone.decls) globals.emplace(d.name, &d);
  }
  Locations at(input, main);
  std::map<const ast::Decl*, std::uint32_t> ends;
  for (const ast::Module* m : modules) ends.merge(end_lines(*m));
  Resolver res;
  for (const ast::Module* m : modules)
    for (const ast::Decl& d : m->decls) res.declare(d);
  for (const ast::Module* m : modules)
    for (const ast::Decl& d : m->decls) res.resolve(d, globals);

  Json front{{"part", "front"}, {"diagnostics", diagnostics_json(diags, at, input.uri)}};
  Json targets = Json::array(), occurrences = Json::array(), symbols = Json::array();
  for (const Target& t : res.targets) {
    Json j{{"name", t.name}, {"kind", t.kind}, {"uri", at.uri(t.loc.file)}, {"range", at.range_at(t.loc, ast::split_counter_name(t.name).second.size())}, {"detail", t.detail}};
    if (t.decl && t.decl->loc.valid()) j["scope"] = at.span(t.decl->loc, ends[t.decl]);
    targets.push_back(j);
  }
  for (const Occurrence& o : res.occurrences)
    occurrences.push_back({{"uri", at.uri(o.loc.file)}, {"range", at.range_at(o.loc, o.length)}, {"target", o.target}});
  for (const ast::Module* m : modules) {
    if (m->file.get() != main) continue;
    for (const ast::Decl& d : m->decls) {
      if (!d.loc.valid() || !d.name_loc.valid()) continue;
      std::string kind = decl_kind(d);
      std::string detail = ast::print_decl(d);
      if (detail.size() > 80) detail = detail.substr(0, 77) + "...";
      symbols.push_back({{"name", d.name},
                         {"kind", symbol_kind(kind, d)},
                         {"detail", kind},
                         {"range", at.span(d.loc, ends[&d])},
                         {"selectionRange", at.range_at(d.name_loc, ast::split_counter_name(d.name).second.size())}});
    }
  }
  front["targets"] = std::move(targets);
  front["occurrences"] = std::move(occurrences);
  front["symbols"] = std::move(symbols);
  send(front);
  if (!comp) return;

  // The model part: the whole pipeline, as `pamc compile` runs it.
  Diagnostics all;
  auto full = compile_text(input.path, input.text, input.load, Stage::Simplified, all);
  Json model{{"part", "model"}, {"diagnostics", diagnostics_json(all, at, input.uri)}};
  Json hovers = Json::object(), loops = Json::array(), hints = Json::array();
  if (full) {
    // `full` read the files again: its declarations are new objects at the same places.
    ModelFacts f = model_facts(full->model);
    std::map<std::string, const ast::Decl*> by_name = full->program->by_name;
    std::map<const ast::Decl*, std::uint32_t> full_ends;
    for (const ast::Module& m : full->program->modules) full_ends.merge(end_lines(m));
    std::map<std::string, const CostEquation*> equations;
    for (const CostEquation& e : full->model.equations) equations.emplace(e.name, &e);
    for (std::size_t k = 0; k < res.targets.size(); ++k) {
      const Target& t = res.targets[k];
      Target now = t;
      if (t.kind != "formal" && t.kind != "index") {
        auto d = by_name.find(t.name);
        if (d == by_name.end()) continue;
        now.decl = d->second;
      }
      hovers[std::to_string(k)] = hover_text(now, equations, f);
    }
    // Every loop of the model, at its keyword: open (and why), or closed.
    // Loops over one name at one depth share their index symbol (lowering): when several
    // do, an open one is not told apart from the others.
    std::map<GiNaC::ex, std::string, GiNaC::ex_is_less> why;  // index -> why its (first) open loop is open
    std::map<GiNaC::ex, std::size_t, GiNaC::ex_is_less> sharing;
    std::vector<GiNaC::ex> reds;
    for (const CostEquation& e : full->model.equations) open_loops(e.value, reds);
    for (const GiNaC::ex& x : reds) {
      GiNaC::ex index = GiNaC::ex_to<sym::reduction>(x).index_ex();
      if (!why.count(index)) why[index] = sym::why_open(x, full->model.facts);
    }
    for (const LoopSite& l : full->model.loops) ++sharing[l.index];
    for (const LoopSite& l : full->model.loops) {
      if (!l.loc.valid()) continue;
      std::string text;
      auto w = why.find(l.index);
      if (w != why.end()) {
        std::size_t n = sharing[l.index];
        text = n == 1 ? "This loop stays open: " + w->second
                      : "A loop over " + l.index.get_name() + " stays open (this one or another of the " +
                            std::to_string(n) + " loops over " + l.index.get_name() + "): " + w->second;
      }
      if (text.empty()) text = "This loop has a closed form.";
      loops.push_back({{"uri", at.uri(l.loc.file)}, {"range", at.word_at(l.loc)}, {"text", text}});
    }
    for (const CostEquation& e : full->model.equations) {
      auto v = f.values.find(e.name);
      if (v == f.values.end()) continue;
      const std::string decl_name = e.role == EquationRole::Time ? e.process : e.name;
      auto d = by_name.find(decl_name);
      if (d == by_name.end() || !d->second->loc.valid() || d->second->loc.file != full->program->main_file.get()) continue;
      std::uint32_t line = full_ends[d->second];
      std::string_view text = d->second->loc.file->line_text(line);
      hints.push_back({{"position", position(line - 1, utf16_column(text, text.size()))},
                       {"label", e.name + " = " + v->second},
                       {"paddingLeft", true}});
    }
  }
  model["hovers"] = std::move(hovers);
  model["loops"] = std::move(loops);
  model["hints"] = std::move(hints);
  send(model);
}

}  // namespace pamc::lsp
