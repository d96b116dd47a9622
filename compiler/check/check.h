// The check stage: loads a model and everything it imports, then checks names, types,
// arity, parameters and cycles. Later stages may assume a Program is well formed:
//   - every Name/Call refers to a loop index or formal in scope, a declaration, `fcfs`,
//     or a builtin function, with the right number of arguments;
//   - every declaration's body has the declared type;
//   - a numeric `if (c) a else b` whose branches are processes is an IfProc node (the
//     parser cannot tell, so it makes IfExpr whenever there is an `else`);
//   - no equation depends on itself, directly or through others.
// `resource parameter fcfs(i)` (the seed's declaration of the predefined array) is kept in
// its module but left out of Program::decls and by_name.
// Tests: tests/unit/front_check.cpp, tests/errors/.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/ast/ast.h"
#include "compiler/diag/diag.h"

namespace pamc {

struct LoadOptions {
  std::vector<std::string> include_dirs;  // -I: searched after the importing file's folder
  std::vector<std::string> machines;      // --machine NAME imports machines/NAME.pam
};

struct Program {
  std::vector<ast::Module> modules;              // load order: imports before importers; main last
  std::vector<const ast::Decl*> decls;           // every declaration, in that order
  std::map<std::string, const ast::Decl*> by_name;
  SourceFileP main_file;
};

// Parses `path` and everything it imports, then checks; returns null if any error was reported.
std::unique_ptr<Program> load_program(const std::string& path, const LoadOptions& opts, Diagnostics& diags);

// Same, for model text given in memory (the embedding API and tests); `name` is used in
// diagnostics; imports resolve against the current directory.
std::unique_ptr<Program> load_program_text(const std::string& name, const std::string& text,
                                           const LoadOptions& opts, Diagnostics& diags);

// The builtin numeric functions and their arity (max and min take one or more arguments:
// min_args 1, max_args -1). fcfs is not here: it is the predefined resource array.
struct Builtin {
  const char* name;
  int min_args;
  int max_args;
};
const std::vector<Builtin>& builtin_functions();
const Builtin* find_builtin(const std::string& name);

// The workload counters an MA region may declare (seed 000, section 5: what the X1E's
// counters measure and the MA annotations predict), in the order validate prints them.
struct MaCounter {
  const char* name;     // vector_flops
  const char* meaning;  // "vector floating-point operations"
};
const std::vector<MaCounter>& ma_counters();
const MaCounter* find_ma_counter(const std::string& name);

// The resources whose index the text fixes: `r = fcfs(k, m)` (a number k) and families
// `r(p) = fcfs(p + c, m)` (a number c, or none), for the aliasing warning. (The simulator
// names its servers at the parameters' values: runtime/sim_names.cpp.)
struct FixedResources {
  struct Single {
    const ast::Decl* decl;
    double index;
  };
  struct Family {
    const ast::Decl* decl;
    double offset;
  };
  std::vector<Single> singles;
  std::vector<Family> families;
  bool complete = true;  // every resource declaration is one of the above
};
FixedResources fixed_resources(const Program& program);

// Checks already-parsed modules (in load order) and builds the Program; used by the loaders.
std::unique_ptr<Program> check_modules(std::vector<ast::Module> modules, Diagnostics& diags);

}  // namespace pamc
