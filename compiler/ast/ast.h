// The AST: what the parser builds from ANTLR's parse tree and every later stage reads.
// One node type for numeric, process and resource expressions (the checker gives each its
// type); nodes are immutable and shared, so a pass rebuilds only what changes.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compiler/source/source.h"

namespace pamc::ast {

enum class Kind {
  // numeric
  Number,     // name: the literal as written (parsed exactly later: 10.1 is 101/10)
  Name,       // name: a reference with no argument list (equation, formal, loop index)
  Call,       // name(args): user equation, resource family, fcfs, or a builtin function
              //   (max, min, sqrt, log, log2, exp, ceil, floor, abs, unitvec)
  Unary,      // op: Neg or Not; kids: [operand]
  Binary,     // op: arithmetic, comparison or logic; kids: [lhs, rhs]
  Reduce,     // op: Sum, Max or Min; name: index; kids: [lb, ub, body]
  IfExpr,     // kids: [cond, then, else]  (numeric if: both branches required)
  Vector,     // kids: elements
  // process
  Delay,      // kids: [time]
  Use,        // kids: [resource, time]
  Seq,        // a ; b     kids: [a, b]
  Par,        // a || b    kids: [a, b]
  SeqLoop,    // seq (name = lb, ub) body   kids: [lb, ub, body]
  ParLoop,    // par (name = lb, ub) body   kids: [lb, ub, body]
  IfProc,     // if (c) a [else b]          kids: [cond, a] or [cond, a, b]
  Group,      // { body }  kept so the printer can round-trip the user's braces; kids: [body]
};

enum class Op {
  None,
  Add, Sub, Mul, Div, Pow, Mod, IDiv,   // IDiv is `div` (floor division)
  Eq, Ne, Lt, Le, Gt, Ge,
  And, Or,
  Neg, Not,
  Sum, Max, Min,
};

const char* op_spelling(Op op);  // "+", "mod", "==", "and", "sum", ...

struct Node;
using NodeP = std::shared_ptr<const Node>;

struct Node {
  Kind kind;
  Op op = Op::None;
  std::string name;   // Name, Call, Reduce/SeqLoop/ParLoop index; a Number's literal as written
  std::vector<NodeP> kids;
  Loc loc;            // where the node starts (for Binary: the operator)
};

NodeP make(Kind kind, Loc loc, std::vector<NodeP> kids = {}, Op op = Op::None, std::string name = {});
NodeP make_number(Loc loc, std::string text);

enum class Type { Numeric, Process, Resource };
const char* type_name(Type t);  // "numeric", "process", "resource"

// A bound on a parameter: `numeric parameter P >= 1`.
struct Bound {
  Op op = Op::Ge;  // Ge, Gt, Le, Lt
  NodeP value;
};

struct Decl {
  Type type = Type::Numeric;
  bool is_parameter = false;
  std::string name;
  Loc loc;                       // of the declaration's first keyword
  Loc name_loc;
  std::vector<std::string> formals;
  std::vector<Loc> formal_locs;
  NodeP body;                    // null for a parameter without default / `resource parameter`
  std::vector<Bound> bounds;     // numeric parameters only
  // A workload counter of an MA region (`region tzetar { numeric vector_flops = ... }`):
  // a numeric equation named "tzetar.vector_flops" (no other equation can name it), with
  // region "tzetar"; empty for every other declaration. region_loc: the region's name.
  std::string region;
  Loc region_loc;
};

// "tzetar.vector_flops" -> {"tzetar", "vector_flops"}; {"", name} for any other name.
std::pair<std::string, std::string> split_counter_name(const std::string& name);

struct Import {
  std::string path;  // as written, without quotes
  Loc loc;
};

// One parsed file.
struct Module {
  SourceFileP file;
  std::vector<Import> imports;
  std::vector<Decl> decls;
};

// Prints a module in canonical Pamela syntax (`--stage parsed`). Reparsing the output gives
// the same AST (modulo locations).
std::string print_module(const Module& m);
std::string print_expr(const NodeP& e);
std::string print_decl(const Decl& d);

// Structural equality ignoring locations (used by print/reparse tests).
bool same_tree(const NodeP& a, const NodeP& b);
bool same_module(const Module& a, const Module& b);

}  // namespace pamc::ast
