// The fast hand-written parser and ANTLR (the reference grammar) must agree: wherever the
// fast parser accepts a file, ANTLR accepts it too and builds exactly the same AST, node
// for node, with the same locations. Checked on every model in the repository and on
// seeded random mutations of them (tokens deleted, inserted, duplicated), which exercise
// the edges of the grammar where the two could drift apart.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>

#include "compiler/parse/parse.h"

using namespace pamc;
namespace fs = std::filesystem;

namespace {

std::string describe(const Loc& l) { return std::to_string(l.line) + ":" + std::to_string(l.col); }

// Strict equality: kinds, operators, names, literal texts, locations, Group nodes too.
bool identical(const ast::NodeP& a, const ast::NodeP& b, std::string& why) {
  if (!a || !b) {
    if (a != b) why = "one side is null";
    return a == b;
  }
  if (a->kind != b->kind || a->op != b->op || a->name != b->name ||
      a->kids.size() != b->kids.size()) {
    why = "different node at " + describe(a->loc) + " / " + describe(b->loc);
    return false;
  }
  if (a->loc.line != b->loc.line || a->loc.col != b->loc.col) {
    why = "location " + describe(a->loc) + " vs " + describe(b->loc);
    return false;
  }
  for (std::size_t i = 0; i < a->kids.size(); ++i)
    if (!identical(a->kids[i], b->kids[i], why)) return false;
  return true;
}

bool identical(const ast::Module& a, const ast::Module& b, std::string& why) {
  if (a.imports.size() != b.imports.size() || a.decls.size() != b.decls.size()) {
    why = "different numbers of declarations or imports";
    return false;
  }
  for (std::size_t i = 0; i < a.imports.size(); ++i)
    if (a.imports[i].path != b.imports[i].path || a.imports[i].loc.line != b.imports[i].loc.line ||
        a.imports[i].loc.col != b.imports[i].loc.col) {
      why = "import " + std::to_string(i);
      return false;
    }
  for (std::size_t i = 0; i < a.decls.size(); ++i) {
    const ast::Decl &x = a.decls[i], &y = b.decls[i];
    if (x.type != y.type || x.is_parameter != y.is_parameter || x.name != y.name || x.formals != y.formals ||
        x.bounds.size() != y.bounds.size() || describe(x.loc) != describe(y.loc) ||
        describe(x.name_loc) != describe(y.name_loc) || x.region != y.region ||
        describe(x.region_loc) != describe(y.region_loc)) {
      why = "declaration " + x.name + " / " + y.name;
      return false;
    }
    for (std::size_t k = 0; k < x.formal_locs.size(); ++k)
      if (describe(x.formal_locs[k]) != describe(y.formal_locs[k])) {
        why = "formal location in " + x.name;
        return false;
      }
    for (std::size_t k = 0; k < x.bounds.size(); ++k)
      if (x.bounds[k].op != y.bounds[k].op || !identical(x.bounds[k].value, y.bounds[k].value, why)) return false;
    if (!identical(x.body, y.body, why)) return false;
  }
  return true;
}

std::vector<std::string> repository_models() {
  std::vector<std::string> texts;
  for (const char* dir : {"samples", "machines", "stdlib", "tests"}) {
    fs::path root = fs::path(PAMC_SOURCE_DIR) / dir;
    if (!fs::exists(root)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      if (entry.path().extension() != ".pam" || entry.file_size() > 200000) continue;
      std::ifstream in(entry.path(), std::ios::binary);
      std::ostringstream buf;
      buf << in.rdbuf();
      texts.push_back(buf.str());
    }
  }
  return texts;
}

// Agreement on one text; returns whether the fast parser accepted it.
bool check_agreement(const std::string& text, const std::string& label) {
  auto file = std::make_shared<SourceFile>("model.pam", text);
  ast::Module fast;
  bool accepted = parse_module_fast(file, fast);
  if (!accepted) return false;
  Diagnostics diags;
  ast::Module reference = parse_module_antlr(file, diags);
  INFO(label << "\n" << text.substr(0, 2000));
  CHECK_MESSAGE(!diags.has_errors(), "the fast parser accepted what ANTLR rejects");
  std::string why;
  bool same = identical(reference, fast, why);
  CHECK_MESSAGE(same, why);
  return true;
}

}  // namespace

TEST_CASE("fast parser: same AST as ANTLR on every model in the repository") {
  auto models = repository_models();
  REQUIRE(models.size() > 40);
  int accepted = 0;
  for (std::size_t i = 0; i < models.size(); ++i) accepted += check_agreement(models[i], "file " + std::to_string(i));
  MESSAGE(accepted << " of " << models.size() << " repository models taken by the fast parser");
  CHECK(accepted > 30);  // every valid model: the failing ones under tests/errors go to ANTLR
}

TEST_CASE("fast parser: associative chains are joined as ANTLR joins them") {
  // One node per chain of one operator (a + b + c), brackets and other operators kept.
  for (const char* text : {"numeric x = a + b + c - d + e + f", "numeric x = a * b * c + d * e * (f * g) * h",
                           "numeric x = a and b and not c and d or e or f or (g or h)",
                           "process p = delay(1) ; delay(2) ; { delay(3) ; delay(4) } || delay(5) || delay(6) ; delay(7)",
                           "numeric x = a + b * c + d ^ 2 ^ 3 + e div f + g mod h + i"}) {
    REQUIRE(check_agreement(text, text));
  }
  std::string chain = "numeric x = 1";
  for (int i = 0; i < 4000; ++i) chain += " + N";
  chain = "numeric parameter N\n" + chain;
  CHECK(check_agreement(chain, "4,000 terms"));
}

TEST_CASE("fast parser: same AST as ANTLR, or gives up, on 2000 mutated models") {
  auto models = repository_models();
  REQUIRE(!models.empty());
  static const std::vector<std::string> fragments{
      "(", ")", "{", "}", "[", "]", ",", "=", "==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "^", ";",
      "||", "not", "and", "or", "mod", "div", "seq", "par", "sum", "max", "min", "if", "else", "delay", "use",
      "numeric", "process", "resource", "parameter", "import", "region", "x", "i", "1", "2.5", "1e3", ".5", "1.", "1e",
      "\"s\"", "%c\n", "\n", " ", "|", "!", "@"};
  const std::regex token(R"([A-Za-z_][A-Za-z_0-9]*|\d+\.?\d*(?:[eE][+-]?\d+)?|==|!=|<=|>=|\|\||%[^\n]*\n|\s+|.)");
  std::mt19937 rng(20261121);
  int accepted = 0;
  for (int n = 0; n < 2000; ++n) {
    const std::string& src = models[rng() % models.size()];
    if (src.size() > 20000) continue;
    std::vector<std::string> toks;
    for (auto it = std::sregex_iterator(src.begin(), src.end(), token); it != std::sregex_iterator(); ++it)
      toks.push_back(it->str());
    int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      std::size_t k = toks.empty() ? 0 : rng() % (toks.size() + 1);
      switch (rng() % 3) {
        case 0:
          if (!toks.empty()) toks.erase(toks.begin() + static_cast<long>(std::min(k, toks.size() - 1)));
          break;
        case 1: toks.insert(toks.begin() + static_cast<long>(k), " " + fragments[rng() % fragments.size()] + " "); break;
        default:
          if (!toks.empty()) toks.insert(toks.begin() + static_cast<long>(k), toks[rng() % toks.size()]);
      }
    }
    std::string text;
    for (const std::string& t : toks) text += t;
    accepted += check_agreement(text, "mutation " + std::to_string(n));
  }
  MESSAGE(accepted << " of 2000 mutated models taken by the fast parser");
  CHECK(accepted > 100);
}
