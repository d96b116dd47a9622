// Parser and printer tests: one test per construct of SPEC section 2. Each parses a snippet,
// checks the tree's shape, prints it back and checks that print -> reparse gives the same
// AST. Shapes are written as S-expressions by `shape` below.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "compiler/ast/ast.h"
#include "compiler/parse/parse.h"

using namespace pamc;
using ast::Kind;

namespace {

// (kind:op:name kids...) with Number as its text and Name as its name.
std::string shape(const ast::NodeP& n) {
  if (!n) return "null";
  switch (n->kind) {
    case Kind::Number: return n->text;
    case Kind::Name: return n->name;
    default: break;
  }
  static const char* kinds[] = {"Number", "Name", "Call", "Unary", "Binary", "Reduce", "IfExpr", "Vector",
                                "Delay", "Use", "Seq", "Par", "SeqLoop", "ParLoop", "IfProc", "Group"};
  std::string s = "(";
  if (n->kind == Kind::Binary || n->kind == Kind::Unary || n->kind == Kind::Reduce)
    s += ast::op_spelling(n->op);
  else if (n->kind == Kind::Seq) s += ";";
  else if (n->kind == Kind::Par) s += "||";
  else s += kinds[static_cast<int>(n->kind)];
  if (!n->name.empty()) s += ":" + n->name;
  for (auto& k : n->kids) s += " " + shape(k);
  return s + ")";
}

struct Parsed {
  Diagnostics diags;
  ast::Module module;
};

std::unique_ptr<Parsed> parse_text(const std::string& text, const std::string& name = "t.pam") {
  auto p = std::make_unique<Parsed>();
  p->module = parse_module(std::make_shared<SourceFile>(name, text), p->diags);
  return p;
}

std::string first_error(const Parsed& p) {
  for (auto& d : p.diags.all())
    if (d.severity == Severity::Error)
      return std::to_string(d.loc.line) + ":" + std::to_string(d.loc.col) + " " + diag_kind_name(d.kind) + " " +
             d.message;
  return "";
}

// Parses, prints, reparses; returns the printed text. Fails the test on any error or difference.
std::string round_trip(const std::string& text) {
  auto p = parse_text(text);
  REQUIRE_MESSAGE(!p->diags.has_errors(), first_error(*p));
  std::string printed = ast::print_module(p->module);
  auto q = parse_text(printed);
  REQUIRE_MESSAGE(!q->diags.has_errors(), (printed + " -> " + first_error(*q)));
  CHECK_MESSAGE(ast::same_module(p->module, q->module), printed);
  CHECK(ast::print_module(q->module) == printed);  // printing is a fixed point
  return printed;
}

// The body of the single declaration in `text`, as a shape; checks the round trip too.
std::string body_shape(const std::string& text) {
  round_trip(text);
  auto p = parse_text(text);
  REQUIRE(p->module.decls.size() >= 1);
  return shape(p->module.decls.back().body);
}

std::string expr_shape(const std::string& e) { return body_shape("numeric x = " + e); }
std::string proc_shape(const std::string& e) { return body_shape("process x = " + e); }

std::string print_body(const std::string& text) {
  auto p = parse_text(text);
  REQUIRE(!p->diags.has_errors());
  return ast::print_expr(p->module.decls.back().body);
}

}  // namespace

TEST_CASE("parse: numeric literals are kept as written") {
  CHECK(expr_shape("10") == "10");
  CHECK(expr_shape("0.1") == "0.1");
  CHECK(expr_shape("1e6") == "1e6");
  CHECK(expr_shape("2.5e-3") == "2.5e-3");
  CHECK(expr_shape("1E+4") == "1E+4");
  CHECK(expr_shape(".5") == ".5");
  CHECK(expr_shape("1e10000") == "1e10000");
  std::string big(400, '7');
  CHECK(expr_shape(big) == big);
}

TEST_CASE("parse: the seed's MRM (samples/mrm.pam)") {
  std::ifstream in(std::string(PAMC_SOURCE_DIR) + "/samples/mrm.pam");
  std::stringstream buf;
  buf << in.rdbuf();
  auto p = parse_text(buf.str(), "mrm.pam");
  REQUIRE_MESSAGE(!p->diags.has_errors(), first_error(*p));
  REQUIRE(p->module.decls.size() == 7);
  const ast::Decl& main = p->module.decls.back();
  CHECK(main.name == "main");
  CHECK(main.type == ast::Type::Process);
  CHECK(main.loc.line == 12);
  CHECK(main.name_loc.col == 9);
  CHECK(shape(main.body) ==
        "(ParLoop:p 1 P (SeqLoop:i 1 N (Group (; (Delay t_l) (Use s t_s)))))");
  CHECK(p->module.decls[4].name == "fcfs");
  CHECK(p->module.decls[4].is_parameter);
  CHECK(p->module.decls[4].formals == std::vector<std::string>{"i"});
  CHECK(!p->module.decls[4].body);
  round_trip(buf.str());
}
