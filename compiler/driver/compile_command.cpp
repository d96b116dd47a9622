// pamc compile: print or write the model at a stage, or emit C++, Octave, JSON, LaTeX or SymPy
// (docs/cli.md, "compile").
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "compiler/ast/ast.h"
#include "compiler/driver/driver_util.h"
#include "compiler/driver/subcommand.h"
#include "compiler/emit/emit.h"
#include "compiler/passes/pipeline.h"

namespace pamc {
namespace {

enum class Emit { Pamela, Cpp, Octave, Json, Latex, Sympy };

// The one place the stage and emitter names are spelled.
const NameTable<Stage> kStages{
    {Stage::Parsed, "parsed"}, {Stage::Normalized, "normalized"}, {Stage::Time, "time"}, {Stage::Simplified, "simplified"}};
const NameTable<Emit> kEmits{{Emit::Pamela, "pamela"}, {Emit::Cpp, "cpp"}, {Emit::Octave, "octave"}, {Emit::Json, "json"},
                           {Emit::Latex, "latex"}, {Emit::Sympy, "sympy"}};

struct CompileCommand {
  std::string file;
  LoadOptions load;
  Stage stage = Stage::Simplified;
  Emit emit = Emit::Pamela;
  std::string emit_name;  // as given, for messages
  std::string output;  // empty: stdout
  bool all = false;
  bool stats = false;
};

int emit_text(const std::string& output, const std::string& text) {
  if (output.empty()) {
    std::cout << text;
    return kOk;
  }
  if (!write_file_atomically(output, text)) {
    return report(file_error(output, DiagKind::IOError, "cannot write the output file"));
  }
  return kOk;
}

std::string print_parsed(const Program& program) {
  // The main file only: imported files print as their import lines.
  for (const ast::Module& m : program.modules)
    if (m.file == program.main_file) return ast::print_module(m);
  return {};
}

std::string print_stats(const CostModel& model) {
  std::ostringstream out;
  out << "residual reductions: " << model.stats.residual_reductions << "\n";
  out << "residual reductions (all equations): " << model.stats.residual_reductions_all << "\n";
  for (const auto& [rule, count] : model.stats.fired) out << "rule " << rule << ": " << count << "\n";
  return out.str();
}



// --emit cpp|json|latex|sympy: one text; --emit octave: a folder of function files. Everything is
// generated in memory first, so an emission error writes nothing.
int emit_code(const CompileCommand& c, const CostModel& model) {
  try {
    if (c.emit == Emit::Cpp) return emit_text(c.output, emit::emit_cpp(model, c.all));
    if (c.emit == Emit::Json) return emit_text(c.output, emit::emit_json(model, c.all));
    if (c.emit == Emit::Latex) return emit_text(c.output, emit::emit_latex(model, c.all));
    if (c.emit == Emit::Sympy) return emit_text(c.output, emit::emit_sympy(model, c.all));
    auto files = emit::emit_octave(model, c.all);
    if (c.output.empty()) {
      return report(usage_error("compile --emit octave needs -o FOLDER"));
    }
    std::error_code ec;
    std::filesystem::create_directories(c.output, ec);
    if (ec) {
      return report(file_error(c.output, DiagKind::IOError, "cannot create the folder: " + ec.message()));
    }
    for (const auto& [name, text] : files) {
      auto path = std::filesystem::path(c.output) / name;
      std::filesystem::create_directories(path.parent_path(), ec);  // the +model/ package
      if (int rc = emit_text(path.string(), text)) return rc;
    }
    return kOk;
  } catch (const CompileError& e) {
    return report(e);
  }
}

int run_compile(const CompileCommand& c) {
#ifdef __GLIBC__
  // No fast bins: glibc merges all of them (malloc_consolidate) whenever a block of 64 KiB
  // or more is freed, such as a large hash table's buckets, which was a tenth of compiling
  // 10^4 generated equations; the per-thread caches still serve small blocks.
  mallopt(M_MXFAST, 0);
#endif
  Diagnostics diags;
  const Stage stage = c.stage;
  // The compilation is held until the process ends, which returns its memory at once:
  // freeing its trees node by node took 4% of compiling 10^4 equations. The driver ends the
  // process without static destructors (main.cpp, finish); a sanitizer build runs them, and
  // so frees this for LeakSanitizer to check.
  static std::unique_ptr<Compilation> comp;
  comp = compile_file(c.file, c.load, stage, diags);
  if (!comp) return report(diags);
  report(diags);  // the warnings of a model that compiled
  if (c.emit != Emit::Pamela) {
    if (stage != Stage::Simplified) {
      return report(usage_error("compile: --emit " + c.emit_name + " writes the simplified cost model; drop --stage"));
    }
    return emit_code(c, comp->model);
  }
  std::string text;
  switch (stage) {
    case Stage::Parsed: text = print_parsed(*comp->program); break;
    case Stage::Normalized: text = print_normalized(comp->normal); break;
    case Stage::Time:
    case Stage::Simplified: text = print_cost_model(comp->model, c.all); break;
  }
  if (c.stats && stage == Stage::Simplified) std::cerr << print_stats(comp->model);
  int rc = emit_text(c.output, text);
  report(diags);  // warnings, if any
  return rc;
}


void options(po::options_description& d) {
  static const std::string stage_help = names_of(kStages, " | ");
  static const std::string emit_help = names_of(kEmits, " | ");
  d.add_options()
      ("stage", po::value<std::string>()->value_name("STAGE")->default_value("simplified"), stage_help.c_str())
      ("emit", po::value<std::string>()->value_name("FORMAT")->default_value("pamela"), emit_help.c_str())
      ("output,o", po::value<std::string>()->value_name("PATH"), "write to PATH (a folder for --emit octave) instead of stdout")
      ("all", "also print phi_, delta_, omega_ and non-top-level equations")
      ("stats", "print how many reductions remain and how often each rule fired (stderr)");
}

int run(const CommandLine& line) {
  CompileCommand c;
  c.file = line.file;
  c.load = line.load();
  c.stage = parse_name(kStages, line.text("stage"), line.command, "stage");
  c.emit_name = line.text("emit");
  c.emit = parse_name(kEmits, c.emit_name, line.command, "emit");
  c.output = line.text("output");
  c.all = line.flag("all");
  c.stats = line.flag("stats");
  return run_compile(c);
}

}  // namespace

extern const Subcommand compile_command{
    "compile", "print or write the model at a stage (parsed, normalized, time, simplified)",
    "FILE", options, run};

}  // namespace pamc
