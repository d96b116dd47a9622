// Parser and printer tests: one test per construct of SPEC section 2. Each parses a snippet,
// checks the tree's shape, prints it back and checks that print -> reparse gives the same
// AST. Shapes are written as S-expressions by `shape` below.
#include <doctest/doctest.h>

#include <filesystem>
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
    case Kind::Number: return n->name;
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

TEST_CASE("parse: comments and newlines are whitespace, declarations need no terminator") {
  auto p = parse_text("% header\nnumeric a = 1 % one\nnumeric b =\n  a\n+ 2 process c = delay(b)");
  REQUIRE(!p->diags.has_errors());
  REQUIRE(p->module.decls.size() == 3);
  CHECK(shape(p->module.decls[1].body) == "(+ a 2)");
  CHECK(p->module.decls[2].loc.line == 5);
  CHECK(p->module.decls[2].loc.col == 5);
}

TEST_CASE("parse: declarations, parameters, defaults and bounds") {
  CHECK(round_trip("numeric parameter P\n") == "numeric parameter P\n");
  CHECK(round_trip("numeric parameter N = 1000 >= 1\n") == "numeric parameter N = 1000 >= 1\n");
  CHECK(round_trip("numeric parameter B >= 1 <= 4096\n") == "numeric parameter B >= 1 <= 4096\n");
  CHECK(round_trip("numeric parameter X = 2 * 3 > 0 < N + 1\n") == "numeric parameter X = 2 * 3 > 0 < N + 1\n");
  CHECK(round_trip("numeric parameter Y = (1 < 2)\n") == "numeric parameter Y = (1 < 2)\n");
  CHECK(round_trip("resource parameter fcfs(i)\n") == "resource parameter fcfs(i)\n");
  CHECK(round_trip("numeric f(x, y) = x * x + y\n") == "numeric f(x, y) = x * x + y\n");
  CHECK(round_trip("resource cpu(p) = fcfs(p, 1)\n") == "resource cpu(p) = fcfs(p, 1)\n");
  auto p = parse_text("numeric parameter N = 1000 >= 1 <= 4096");
  const ast::Decl& d = p->module.decls.at(0);
  CHECK(d.is_parameter);
  CHECK(shape(d.body) == "1000");
  REQUIRE(d.bounds.size() == 2);
  CHECK(d.bounds[0].op == ast::Op::Ge);
  CHECK(shape(d.bounds[1].value) == "4096");
  CHECK(d.bounds[1].op == ast::Op::Le);
}

TEST_CASE("parse: import") {
  auto p = parse_text("import \"machines/das.pam\"\nnumeric a = 1");
  REQUIRE(p->module.imports.size() == 1);
  CHECK(p->module.imports[0].path == "machines/das.pam");
  CHECK(p->module.imports[0].loc.line == 1);
  CHECK(round_trip("import \"a.pam\"\nnumeric a = 1\n") == "import \"a.pam\"\nnumeric a = 1\n");
}

TEST_CASE("parse: arithmetic precedence and associativity") {
  CHECK(expr_shape("1 + 2 * 3") == "(+ 1 (* 2 3))");
  CHECK(expr_shape("1 - 2 - 3") == "(- (- 1 2) 3)");
  CHECK(expr_shape("1 - (2 - 3)") == "(- 1 (- 2 3))");
  CHECK(expr_shape("2 ^ 3 ^ 2") == "(^ 2 (^ 3 2))");
  CHECK(expr_shape("-x ^ 2") == "(- (^ x 2))");
  CHECK(expr_shape("(-x) ^ 2") == "(^ (- x) 2)");
  CHECK(expr_shape("2 ^ -1") == "(^ 2 (- 1))");
  CHECK(expr_shape("a mod b div c / d") == "(/ (div (mod a b) c) d)");
  CHECK(expr_shape("-a * b") == "(* (- a) b)");
  CHECK(print_body("numeric x = (a * b) + (c ^ (d))") == "a * b + c ^ d");
  CHECK(print_body("numeric x = a / (b * c)") == "a / (b * c)");
  CHECK(print_body("numeric x = (a ^ b) ^ c") == "(a ^ b) ^ c");
}

TEST_CASE("parse: comparisons and logic") {
  CHECK(expr_shape("a + 1 < b * 2") == "(< (+ a 1) (* b 2))");
  CHECK(expr_shape("a == b or c != d and e >= f") == "(or (== a b) (and (!= c d) (>= e f)))");
  CHECK(expr_shape("not a < b") == "(not (< a b))");
  CHECK(expr_shape("not a and b") == "(and (not a) b)");
  CHECK(expr_shape("a <= b") == "(<= a b)");
  CHECK(expr_shape("a > b") == "(> a b)");
  CHECK(print_body("numeric x = not (a and b)") == "not (a and b)");
  CHECK(print_body("numeric x = (not a) + 1") == "(not a) + 1");
}

TEST_CASE("parse: calls, builtins, vectors") {
  CHECK(expr_shape("max(a, b, 3)") == "(Call:max a b 3)");
  CHECK(expr_shape("min(v)") == "(Call:min v)");
  CHECK(expr_shape("sqrt(x) + log(x) + log2(x) + exp(x) + ceil(x) + floor(x) + abs(x)") ==
        "(+ (Call:sqrt x) (Call:log x) (Call:log2 x) (Call:exp x) (Call:ceil x) (Call:floor x) (Call:abs x))");
  CHECK(expr_shape("10 * unitvec(3)") == "(* 10 (Call:unitvec 3))");
  CHECK(expr_shape("[1, 2, 3] * 4") == "(* (Vector 1 2 3) 4)");
  CHECK(expr_shape("[]") == "(Vector)");
  CHECK(expr_shape("f()") == "(Call:f)");
}

TEST_CASE("parse: reductions are told from max(a, b) by `ID =`") {
  CHECK(expr_shape("sum (i = 1, N) { i * 2 }") == "(sum:i 1 N (* i 2))");
  CHECK(expr_shape("max (i = 1, N) { f(i) }") == "(max:i 1 N (Call:f i))");
  CHECK(expr_shape("min (j = a, b) { j }") == "(min:j a b j)");
  CHECK(expr_shape("max (i == 1, N)") == "(Call:max (== i 1) N)");
  CHECK(expr_shape("sum (i = 1, N) { i } + 1") == "(+ (sum:i 1 N i) 1)");
  CHECK(print_body("numeric x = sum (i = 1, N) i") == "sum (i = 1, N) { i }");
}

TEST_CASE("parse: numeric if") {
  CHECK(expr_shape("if (a < b) 1 else 2") == "(IfExpr (< a b) 1 2)");
  CHECK(expr_shape("if (c) 1 else 2 + 3") == "(+ (IfExpr c 1 2) 3)");
  CHECK(expr_shape("if (c) -1 else x ^ 2") == "(IfExpr c (- 1) (^ x 2))");
  CHECK(print_body("numeric x = (if (c) 1 else 2) ^ 2") == "(if (c) 1 else 2) ^ 2");
}

TEST_CASE("parse: process operators, sequence binds tighter than ||") {
  CHECK(proc_shape("a ; b || c ; d") == "(|| (; a b) (; c d))");
  CHECK(proc_shape("a ; b ; c") == "(; a b c)");  // a chain of one operator is one node
  CHECK(proc_shape("delay(t) ; use(s, t)") == "(; (Delay t) (Use s t))");
  CHECK(proc_shape("{ a || b } ; c") == "(; (Group (|| a b)) c)");
  CHECK(proc_shape("a ; (b || c)") == "(; a (|| b c))");
  CHECK(print_body("process x = a ; (b || c)") == "a ; { b || c }");
  CHECK(print_body("process x = (a ; b) || c") == "a ; b || c");
}

TEST_CASE("parse: seq and par loops take one term as body") {
  CHECK(proc_shape("seq (i = 1, N) a ; b") == "(; (SeqLoop:i 1 N a) b)");
  CHECK(proc_shape("par (p = 1, P) { a ; b }") == "(ParLoop:p 1 P (Group (; a b)))");
  CHECK(proc_shape("par (p = 1, P) seq (i = 1, N) delay(i)") == "(ParLoop:p 1 P (SeqLoop:i 1 N (Delay i)))");
  CHECK(proc_shape("seq (i = 1, N / 2) mult(i)") == "(SeqLoop:i 1 (/ N 2) (Call:mult i))");
  // A body built by a later stage without braces is printed with them.
  auto a = ast::make(Kind::Name, {}, {}, ast::Op::None, "a");
  auto b = ast::make(Kind::Name, {}, {}, ast::Op::None, "b");
  auto one = ast::make_number({}, "1");
  auto loop = ast::make(Kind::SeqLoop, {}, {one, one, ast::make(Kind::Seq, {}, {a, b})}, ast::Op::None, "i");
  CHECK(ast::print_expr(loop) == "seq (i = 1, 1) { a ; b }");
  auto q = parse_text("process x = " + ast::print_expr(loop));
  CHECK(ast::same_tree(q->module.decls.at(0).body, loop));
}

TEST_CASE("parse: process if, dangling else") {
  CHECK(proc_shape("if (c) a") == "(IfProc c a)");
  CHECK(proc_shape("if (c) a else b") == "(IfExpr c a b)");  // the checker makes it IfProc
  CHECK(proc_shape("if (c) a ; b") == "(; (IfProc c a) b)");
  CHECK(proc_shape("if (c) if (d) a else b") == "(IfProc c (IfExpr d a b))");
  auto c = ast::make(Kind::Name, {}, {}, ast::Op::None, "c");
  auto a = ast::make(Kind::Name, {}, {}, ast::Op::None, "a");
  auto inner = ast::make(Kind::IfProc, {}, {c, a});
  auto outer = ast::make(Kind::IfProc, {}, {c, inner, a});
  CHECK(ast::print_expr(outer) == "if (c) { if (c) a } else a");
  auto q = parse_text("process x = " + ast::print_expr(outer));
  CHECK(shape(q->module.decls.at(0).body) == "(IfExpr c (Group (IfProc c a)) a)");
}

TEST_CASE("parse: locations are 1-based, columns in bytes") {
  auto p = parse_text("% é\nnumeric  é2 = 1\nnumeric x = 'y");
  CHECK(p->diags.has_errors());
  auto q = parse_text("% é ü\nnumeric x = a +\n  b");
  REQUIRE(!q->diags.has_errors());
  const auto& body = q->module.decls.at(0).body;
  CHECK(body->loc.line == 2);
  CHECK(body->loc.col == 15);
  CHECK(body->kids[1]->loc.line == 3);
  CHECK(body->kids[1]->loc.col == 3);
  auto r = parse_text("% ééé\nnumeric x = 1 $");
  REQUIRE(r->diags.all().size() == 1);
  CHECK(r->diags.all()[0].loc.line == 2);
  CHECK(r->diags.all()[0].loc.col == 15);
  auto s = parse_text("numeric x = \"é\" $");
  REQUIRE(s->diags.has_errors());
  CHECK(s->diags.all()[0].loc.col == 13);
}

TEST_CASE("parse: hostile input is reported, never crashes") {
  CHECK(first_error(*parse_text(std::string("numeric a = 1\0", 14))).rfind("1:14 InvalidEncoding", 0) == 0);
  CHECK(first_error(*parse_text("% \xff\n")).rfind("1:3 InvalidEncoding", 0) == 0);
  CHECK(first_error(*parse_text("process m = " + std::string(20000, '{'))).rfind("1:1013 NestingTooDeep", 0) == 0);
  CHECK(first_error(*parse_text("numeric x = " + std::string(20000, '-') + "1")).find("NestingTooDeep") != std::string::npos);
  // A chain of one associative operator is flat, not nested; one of `-` is still nesting.
  std::string chain = "numeric x = 1", minus = "numeric x = 1";
  for (int i = 0; i < 5000; ++i) chain += "+1", minus += "-1";
  auto flat = parse_text(chain);
  CHECK(!flat->diags.has_errors());
  REQUIRE(flat->module.decls.size() == 1);
  CHECK(flat->module.decls[0].body->kids.size() == 5001);
  CHECK(first_error(*parse_text(minus)).find("NestingTooDeep") != std::string::npos);
  CHECK(first_error(*parse_text("numeric x = 1e10001")).rfind("1:13 NumberTooLarge", 0) == 0);
  CHECK(!parse_text("numeric x = 1e-10000")->diags.has_errors());
  CHECK(!parse_text("")->diags.has_errors());
  CHECK(first_error(*parse_text("numeric x = (1")).find("expected ')'") != std::string::npos);
}

TEST_CASE("parse: every sample and test model prints back to the same AST") {
  namespace fs = std::filesystem;
  int models = 0;
  for (const char* dir : {"samples", "tests/errors", "stdlib", "machines", "tests/golden"}) {
    fs::path root = fs::path(PAMC_SOURCE_DIR) / dir;
    if (!fs::is_directory(root)) continue;
    for (auto& entry : fs::recursive_directory_iterator(root)) {
      if (entry.path().extension() != ".pam") continue;
      std::ifstream in(entry.path());
      std::stringstream buf;
      buf << in.rdbuf();
      auto p = parse_text(buf.str(), entry.path().string());
      if (p->diags.has_errors()) continue;  // the syntax-error tests
      INFO(entry.path().string());
      round_trip(buf.str());
      ++models;
    }
  }
  CHECK(models >= 40);
}
