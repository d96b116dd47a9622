// The AST's printer (canonical Pamela, `--stage parsed`), constructors and structural
// equality. The printer writes the fewest brackets the grammar needs (grammar/Pamela.g4):
// round brackets around numeric expressions, braces around process expressions, and the
// user's own braces (Group nodes). Reparsing its output gives the same tree (same_tree).
#include <algorithm>
#include <utility>

#include "compiler/ast/ast.h"

namespace pamc::ast {

const char* op_spelling(Op op) {
  switch (op) {
    case Op::None: return "";
    case Op::Add: return "+";
    case Op::Sub: return "-";
    case Op::Mul: return "*";
    case Op::Div: return "/";
    case Op::Pow: return "^";
    case Op::Mod: return "mod";
    case Op::IDiv: return "div";
    case Op::Eq: return "==";
    case Op::Ne: return "!=";
    case Op::Lt: return "<";
    case Op::Le: return "<=";
    case Op::Gt: return ">";
    case Op::Ge: return ">=";
    case Op::And: return "and";
    case Op::Or: return "or";
    case Op::Neg: return "-";
    case Op::Not: return "not";
    case Op::Sum: return "sum";
    case Op::Max: return "max";
    case Op::Min: return "min";
  }
  return "?";
}

const char* type_name(Type t) {
  switch (t) {
    case Type::Numeric: return "numeric";
    case Type::Process: return "process";
    case Type::Resource: return "resource";
  }
  return "?";
}

NodeP make(Kind kind, Loc loc, std::vector<NodeP> kids, Op op, std::string name) {
  auto n = std::make_shared<Node>();
  n->kind = kind;
  n->op = op;
  n->name = std::move(name);
  n->kids = std::move(kids);
  n->loc = loc;
  return n;
}

NodeP make_number(Loc loc, std::string text) {
  auto n = std::make_shared<Node>();
  n->kind = Kind::Number;
  n->name = std::move(text);
  n->loc = loc;
  return n;
}

namespace {

// Binding strength, loosest first, as in the grammar.
enum Prec { kPar = 1, kSeq, kOr, kAnd, kNot, kCmp, kAdd, kMul, kTerm, kPow, kPrimary };

int prec(const Node& n) {
  switch (n.kind) {
    case Kind::Par: return kPar;
    case Kind::Seq: return kSeq;
    case Kind::Unary: return n.op == Op::Not ? kNot : kTerm;
    case Kind::Binary:
      switch (n.op) {
        case Op::Or: return kOr;
        case Op::And: return kAnd;
        case Op::Eq: case Op::Ne: case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: return kCmp;
        case Op::Add: case Op::Sub: return kAdd;
        case Op::Pow: return kPow;
        default: return kMul;
      }
    case Kind::Reduce: case Kind::IfExpr: case Kind::SeqLoop: case Kind::ParLoop: case Kind::IfProc:
      return kTerm;  // prefix constructs: their body is a term, so `^` after them would bind inside
    case Kind::Number: return !n.name.empty() && n.name[0] == '-' ? kTerm : kPrimary;
    default: return kPrimary;
  }
}

bool is_process_kind(const Node& n) {
  switch (n.kind) {
    case Kind::Delay: case Kind::Use: case Kind::Seq: case Kind::Par: case Kind::SeqLoop:
    case Kind::ParLoop: case Kind::IfProc: case Kind::Group:
      return true;
    default:
      return false;
  }
}

// True when the printed text ends with an `if` without `else`, which would capture an
// `else` printed after it.
bool ends_with_open_if(const Node& n) {
  switch (n.kind) {
    case Kind::IfProc: return n.kids.size() < 3 || ends_with_open_if(*n.kids[2]);
    case Kind::IfExpr: return n.kids.size() == 3 && ends_with_open_if(*n.kids[2]);
    case Kind::SeqLoop: case Kind::ParLoop: return n.kids.size() == 3 && ends_with_open_if(*n.kids[2]);
    case Kind::Unary: return !n.kids.empty() && ends_with_open_if(*n.kids.back());
    case Kind::Binary: case Kind::Seq: case Kind::Par: return n.kids.size() >= 2 && ends_with_open_if(*n.kids.back());
    default: return false;
  }
}

class Printer {
 public:
  std::string out;

  // Prints `e` so that it parses back at precedence level `min`.
  void expr(const NodeP& e, int min = kPar, bool before_else = false) {
    if (!e) {
      out += "<null>";
      return;
    }
    bool wrap = prec(*e) < min || (before_else && ends_with_open_if(*e));
    if (wrap) out += is_process_kind(*e) ? "{ " : "(";
    bare(*e);
    if (wrap) out += is_process_kind(*e) ? " }" : ")";
  }

 private:
  void list(const std::vector<NodeP>& kids, std::size_t from = 0) {
    for (std::size_t i = from; i < kids.size(); ++i) {
      if (i > from) out += ", ";
      expr(kids[i]);
    }
  }
  const NodeP& kid(const Node& n, std::size_t i) {
    static const NodeP null;
    return i < n.kids.size() ? n.kids[i] : null;
  }
  void range(const Node& n) {
    out += " (" + n.name + " = ";
    expr(kid(n, 0));
    out += ", ";
    expr(kid(n, 1));
    out += ") ";
  }

  void bare(const Node& n) {
    switch (n.kind) {
      case Kind::Number: out += n.name; return;
      case Kind::Name: out += n.name; return;
      case Kind::Call:
        out += n.name + "(";
        list(n.kids);
        out += ")";
        return;
      case Kind::Vector:
        out += "[";
        list(n.kids);
        out += "]";
        return;
      case Kind::Delay: case Kind::Use:
        out += n.kind == Kind::Delay ? "delay(" : "use(";
        list(n.kids);
        out += ")";
        return;
      case Kind::Group:
        out += "{ ";
        expr(kid(n, 0));
        out += " }";
        return;
      case Kind::Unary:
        if (n.op == Op::Not) {
          out += "not ";
          expr(kid(n, 0), kNot);
        } else {
          out += "-";
          expr(kid(n, 0), kTerm);
        }
        return;
      case Kind::Binary: case Kind::Seq: case Kind::Par: {
        int p = prec(n);
        const char* op = n.kind == Kind::Seq ? ";" : n.kind == Kind::Par ? "||" : op_spelling(n.op);
        if (n.op == Op::Pow) {
          expr(kid(n, 0), kPrimary);
          out += " ^ ";
          expr(kid(n, 1), kTerm);
        } else {  // a chain of one associative operator (parse/build_ast.h, Chain) has more than two kids
          expr(kid(n, 0), p);
          for (std::size_t i = 1; i < std::max<std::size_t>(n.kids.size(), 2); ++i) {
            out += std::string(" ") + op + " ";
            expr(kid(n, i), p + 1);
          }
        }
        return;
      }
      case Kind::SeqLoop: case Kind::ParLoop:
        out += n.kind == Kind::SeqLoop ? "seq" : "par";
        range(n);
        expr(kid(n, 2), kTerm);
        return;
      case Kind::Reduce:
        out += op_spelling(n.op);
        range(n);
        out += "{ ";
        expr(kid(n, 2));
        out += " }";
        return;
      case Kind::IfExpr: case Kind::IfProc:
        out += "if (";
        expr(kid(n, 0));
        out += ") ";
        expr(kid(n, 1), kTerm, n.kids.size() > 2);
        if (n.kids.size() > 2) {
          out += " else ";
          expr(kid(n, 2), kTerm);
        }
        return;
    }
  }
};

NodeP strip(NodeP n) {
  while (n && n->kind == Kind::Group && n->kids.size() == 1) n = n->kids[0];
  return n;
}

}  // namespace

std::string print_expr(const NodeP& e) {
  Printer p;
  p.expr(e);
  return p.out;
}

static bool same_place(const Loc& a, const Loc& b) {
  return a.file == b.file && a.line == b.line && a.col == b.col;
}

std::pair<std::string, std::string> split_counter_name(const std::string& name) {
  std::size_t dot = name.find('.');
  if (dot == std::string::npos) return {std::string(), name};
  return {name.substr(0, dot), name.substr(dot + 1)};
}

std::string print_decl(const Decl& d) {
  std::string s = type_name(d.type);
  if (d.is_parameter) s += " parameter";
  s += " " + (d.region.empty() ? d.name : split_counter_name(d.name).second);
  if (!d.formals.empty()) {
    s += "(";
    for (std::size_t i = 0; i < d.formals.size(); ++i) s += (i ? ", " : "") + d.formals[i];
    s += ")";
  }
  // A parameter's default and bounds are parsed at additive level (`= 1000 >= 1`).
  int level = d.is_parameter ? kAdd : kPar;
  if (d.body) {
    Printer p;
    p.expr(d.body, level);
    s += " = " + p.out;
  }
  for (const Bound& b : d.bounds) {
    Printer p;
    p.expr(b.value, kAdd);
    s += std::string(" ") + op_spelling(b.op) + " " + p.out;
  }
  return s;
}

std::string print_module(const Module& m) {
  std::string s;
  for (const Import& i : m.imports) s += "import \"" + i.path + "\"\n";
  // The counters of one region block are consecutive declarations with one region_loc.
  for (std::size_t i = 0; i < m.decls.size(); ++i) {
    const Decl& d = m.decls[i];
    if (d.region.empty()) {
      s += print_decl(d) + "\n";
      continue;
    }
    s += "region " + d.region + " {\n";
    for (; i < m.decls.size() && m.decls[i].region == d.region && same_place(m.decls[i].region_loc, d.region_loc); ++i)
      s += "  " + print_decl(m.decls[i]) + "\n";
    --i;
    s += "}\n";
  }
  return s;
}

// Group nodes only record the user's braces, so equality looks through them.
bool same_tree(const NodeP& a0, const NodeP& b0) {
  NodeP a = strip(a0), b = strip(b0);
  if (!a || !b) return !a && !b;
  if (a->kind != b->kind || a->op != b->op || a->name != b->name ||
      a->kids.size() != b->kids.size())
    return false;
  for (std::size_t i = 0; i < a->kids.size(); ++i)
    if (!same_tree(a->kids[i], b->kids[i])) return false;
  return true;
}

bool same_module(const Module& a, const Module& b) {
  if (a.imports.size() != b.imports.size() || a.decls.size() != b.decls.size()) return false;
  for (std::size_t i = 0; i < a.imports.size(); ++i)
    if (a.imports[i].path != b.imports[i].path) return false;
  for (std::size_t i = 0; i < a.decls.size(); ++i) {
    const Decl& x = a.decls[i];
    const Decl& y = b.decls[i];
    if (x.type != y.type || x.is_parameter != y.is_parameter || x.name != y.name ||
        x.formals != y.formals || x.region != y.region || !same_tree(x.body, y.body) ||
        x.bounds.size() != y.bounds.size())
      return false;
    for (std::size_t k = 0; k < x.bounds.size(); ++k)
      if (x.bounds[k].op != y.bounds[k].op || !same_tree(x.bounds[k].value, y.bounds[k].value)) return false;
  }
  return true;
}

}  // namespace pamc::ast
