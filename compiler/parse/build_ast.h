// What both parsers share when they make the AST (internal to compiler/parse/): the limits,
// the literal check, node making under the height limit, and the joining of associative
// chains. The ANTLR builder (antlr_builder.cpp) and the fast parser (fast_parser.cpp) each
// build through these and nothing else, so they make the same nodes and reject the same
// things; neither reaches into the other.
#pragma once
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "compiler/ast/ast.h"
#include "compiler/diag/diag.h"
#include "compiler/source/source.h"

namespace pamc::parse {

// Brackets ( [ { nested deeper than this are refused before either parser runs (guards.h).
constexpr int kMaxBracketNesting = 1000;
// No AST is deeper than this, so every later stage can recurse over it safely.
constexpr int kMaxAstDepth = 3000;
// A numeric literal is kept as written; only its size is bounded: at most this many
// digits, and an exponent at most this large in magnitude.
constexpr int kMaxLiteralDigits = 10000;
constexpr int kMaxLiteralExponent = 10000;

// A node and the height of its tree (a leaf is 1).
struct Built {
  ast::NodeP node;
  int height = 1;
};

// A node over `kids`; throws CompileError (NestingTooDeep) when it would be deeper than
// kMaxAstDepth. (The fast parser takes that as its cue to give up.)
inline Built make_node(ast::Kind kind, Loc at, std::vector<Built> kids, ast::Op op = ast::Op::None,
                       std::string name = {}) {
  int h = 0;
  std::vector<ast::NodeP> nodes;
  nodes.reserve(kids.size());
  for (auto& k : kids) {
    h = std::max(h, k.height);
    nodes.push_back(std::move(k.node));
  }
  if (h + 1 > kMaxAstDepth)
    throw CompileError(at, DiagKind::NestingTooDeep,
                       "expression nested too deeply (more than " + std::to_string(kMaxAstDepth) +
                           " levels of operators and brackets)");
  return {ast::make(kind, at, std::move(nodes), op, std::move(name)), h + 1};
}

// Reduction bodies drop their braces: `sum (i = 1, N) { e }` keeps e (the printer always
// writes the braces back).
inline Built strip_group(Built b) {
  if (b.node->kind == ast::Kind::Group) return {b.node->kids[0], b.height - 1};
  return b;
}

// Throws CompileError (NumberTooLarge) for a literal with more than kMaxLiteralDigits
// digits or an exponent beyond kMaxLiteralExponent. The value is read exactly by a later
// stage.
void check_number(const std::string& text, Loc at);

// A left-leaning chain of one associative operator (a + b + c, a * b * c, a and b and c,
// a or b or c, p ; q ; r, p || q || r) becomes one node with every operand as a kid, so a
// flat sum of 4,000 terms is 2 levels deep, not 4,000, and no later stage recurses once per
// term. Only a chain as written is joined: (a + b) + c keeps its brackets' node. - / ^ mod
// div and the comparisons stay binary.
inline bool associative(ast::Kind kind, ast::Op op) {
  if (kind == ast::Kind::Seq || kind == ast::Kind::Par) return true;
  return kind == ast::Kind::Binary &&
         (op == ast::Op::Add || op == ast::Op::Mul || op == ast::Op::And || op == ast::Op::Or);
}

// The operands of the chain being read, in order. A parser reading `acc op rhs op rhs ...`
// left to right calls step() for each operator and close() at the end.
class Chain {
 public:
  // acc = acc <op> rhs, joining an open chain of the same operator.
  void step(Built& acc, ast::Kind kind, ast::Op op, Loc at, Built rhs) {
    if (!kids_.empty() && kind == kind_ && op == op_) {
      kids_.push_back(std::move(rhs));
      return;
    }
    close(acc);
    if (associative(kind, op)) {
      kids_.push_back(std::move(acc));
      kids_.push_back(std::move(rhs));
      kind_ = kind;
      op_ = op;
      at_ = at;
      return;
    }
    std::vector<Built> two;
    two.reserve(2);
    two.push_back(std::move(acc));
    two.push_back(std::move(rhs));
    acc = make_node(kind, at, std::move(two), op);
  }
  // Ends the open chain (if any) into acc.
  void close(Built& acc) {
    if (kids_.empty()) return;
    acc = make_node(kind_, at_, std::move(kids_), op_);
    kids_.clear();
  }

 private:
  std::vector<Built> kids_;
  ast::Kind kind_ = ast::Kind::Binary;
  ast::Op op_ = ast::Op::None;
  Loc at_;
};

}  // namespace pamc::parse
