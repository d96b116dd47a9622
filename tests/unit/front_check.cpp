// Checker and loader tests: the Program's shape (load order, decls, by_name), scopes,
// the IfExpr -> IfProc retyping, imports (idempotent, cycles, -I, --machine), and that each
// error is reported with its kind and location. tests/errors/ covers each error end to end.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "compiler/check/check.h"

using namespace pamc;

namespace {

std::string errors(const Diagnostics& d) {
  std::string s;
  for (auto& x : d.all())
    if (x.severity == Severity::Error)
      s += std::to_string(x.loc.line) + ":" + std::to_string(x.loc.col) + " " + diag_kind_name(x.kind) + "\n";
  return s;
}

std::string check_errors(const std::string& text) {
  Diagnostics d;
  auto p = load_program_text("t.pam", text, {}, d);
  CHECK((p == nullptr) == d.has_errors());
  return errors(d);
}

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() / ("pamc_front_check_" + std::to_string(::getpid()));
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string write(const std::string& name, const std::string& text) {
    auto p = path / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
};

}  // namespace

TEST_CASE("check: the seed's MRM loads, fcfs(i) declaration changes nothing") {
  Diagnostics d;
  auto p = load_program(std::string(PAMC_SOURCE_DIR) + "/samples/mrm.pam", {}, d);
  REQUIRE_MESSAGE(p, errors(d));
  CHECK(p->modules.size() == 1);
  CHECK(p->decls.size() == 6);  // `resource parameter fcfs(i)` is not among them
  CHECK(p->by_name.count("fcfs") == 0);
  CHECK(p->by_name.at("main")->type == ast::Type::Process);
  CHECK(p->main_file == p->modules.back().file);
}

TEST_CASE("check: valid models") {
  CHECK(check_errors("") == "");
  CHECK(check_errors("numeric parameter P >= 1\nresource cpu(p) = fcfs(p, 1)\n"
                     "process mult(p) = use(cpu(p), t)\nnumeric t = 2\n"
                     "process main = par (p = 1, P) mult(p)") == "");
  CHECK(check_errors("numeric v = [1, 2, 3] * 4 + 10 * unitvec(3)\nnumeric m = max(v) + max(1, 2, 3) + min(v)\n"
                     "numeric s = sum (i = 1, 10) { i ^ 2 } + max (i = 1, 3) { i mod 2 } + min (j = 0, 1) { j div 2 }\n"
                     "numeric c = if (s > 1 and not m < 2 or 1) sqrt(s) else log(s) + log2(s) + exp(1) + ceil(1.5) + floor(1) + abs(-1)") == "");
  CHECK(check_errors("numeric i = 5\nprocess main = seq (i = 1, i) delay(i)") == "");  // bound sees the global i
  CHECK(check_errors("numeric f(x) = x\nnumeric x = 2\nnumeric g = f(x)") == "");
  CHECK(check_errors("resource parameter fcfs(i)\nresource parameter fcfs(i)\nresource s = fcfs(0, 1)") == "");
}

TEST_CASE("check: a process if with else becomes IfProc") {
  Diagnostics d;
  auto p = load_program_text("t.pam", "numeric c = 1\nprocess main = if (c) delay(1) else { delay(2) ; delay(3) }\n"
                             "numeric x = if (c) 1 else 2", {}, d);
  REQUIRE(p);
  CHECK(p->by_name.at("main")->body->kind == ast::Kind::IfProc);
  CHECK(p->by_name.at("x")->body->kind == ast::Kind::IfExpr);
}

TEST_CASE("check: errors, kinds and locations") {
  CHECK(check_errors("process main = delay(t)") == "1:22 UndefinedName\n");
  CHECK(check_errors("numeric a = 1\nnumeric a = 2") == "2:9 DuplicateDefinition\n");
  CHECK(check_errors("numeric t = 1\nprocess main = t") == "2:16 TypeMismatch\n");
  CHECK(check_errors("process p = delay(1)\nnumeric x = p * 2") == "2:13 TypeMismatch\n");
  CHECK(check_errors("resource r = fcfs(0, 1)\nprocess main = delay(r)") == "2:22 TypeMismatch\n");
  CHECK(check_errors("numeric f(a) = a\nnumeric x = f(1, 2)") == "2:13 ArityMismatch\n");
  CHECK(check_errors("numeric x = sqrt()") == "1:13 ArityMismatch\n");
  CHECK(check_errors("numeric a = b\nnumeric b = c\nnumeric c = a") == "1:9 CyclicDefinition\n");
  CHECK(check_errors("numeric parameter P(x)") == "1:21 InvalidParameter\n");
  CHECK(check_errors("process main = seq (i = 1, i) delay(1)") == "1:28 UndefinedName\n");
  CHECK(check_errors("numeric f(x) = x\nnumeric g = x") == "2:13 UndefinedName\n");
  // several independent errors in one run
  CHECK(check_errors("numeric a = zz\nprocess main = delay(yy) ; 3") == "1:13 UndefinedName\n2:22 UndefinedName\n2:28 TypeMismatch\n");
}

TEST_CASE("check: the cycle is named") {
  Diagnostics d;
  load_program_text("t.pam", "numeric a = b + 1\nnumeric b = a", {}, d);
  REQUIRE(d.all().size() == 1);
  CHECK(d.all()[0].message.find("a -> b -> a") != std::string::npos);
}

TEST_CASE("check: suggestions for misspelled names") {
  Diagnostics d;
  load_program_text("t.pam", "numeric t_local = 1\nprocess main = delay(t_locl)", {}, d);
  REQUIRE(d.all().size() == 1);
  CHECK(d.all()[0].message.find("did you mean 't_local'?") != std::string::npos);
}

TEST_CASE("check: imports load once, in order, and report cycles and missing files") {
  TempDir dir;
  dir.write("lib/base.pam", "numeric t = 1\n");
  dir.write("mid.pam", "import \"lib/base.pam\"\nnumeric u = t * 2\n");
  std::string main = dir.write("main.pam", "import \"mid.pam\"\nimport \"lib/base.pam\"\nprocess main = delay(u + t)\n");
  Diagnostics d;
  auto p = load_program(main, {}, d);
  REQUIRE_MESSAGE(p, errors(d));
  REQUIRE(p->modules.size() == 3);
  CHECK(p->modules[0].file->path.find("base.pam") != std::string::npos);
  CHECK(p->modules[1].file->path.find("mid.pam") != std::string::npos);
  CHECK(p->decls.size() == 3);
  CHECK(p->decls[0]->name == "t");

  dir.write("c1.pam", "import \"c2.pam\"\n");
  dir.write("c2.pam", "import \"c1.pam\"\n");
  Diagnostics d2;
  CHECK(!load_program(dir.write("cyc.pam", "import \"c1.pam\"\n"), {}, d2));
  CHECK(errors(d2) == "1:1 ImportCycle\n");

  Diagnostics d3;
  CHECK(!load_program(dir.write("miss.pam", "numeric a = 1\nimport \"nope.pam\"\n"), {}, d3));
  CHECK(errors(d3) == "2:1 ImportNotFound\n");

  dir.write("inc/extra.pam", "numeric e = 3\n");
  LoadOptions opts;
  opts.include_dirs.push_back((dir.path / "inc").string());
  Diagnostics d4;
  CHECK(load_program(dir.write("withinc.pam", "import \"extra.pam\"\nnumeric f = e\n"), opts, d4));

  dir.write("inc/mach.pam", "numeric t_flop = 1e-9\n");
  LoadOptions m;
  m.include_dirs.push_back((dir.path / "inc").string());
  m.machines.push_back("mach");
  Diagnostics d5;
  auto pm = load_program(dir.write("usem.pam", "process main = delay(t_flop)\n"), m, d5);
  REQUIRE_MESSAGE(pm, errors(d5));
  CHECK(pm->modules.size() == 2);

  Diagnostics d6;
  std::string nofile = (dir.path / "absent.pam").string();
  CHECK(!load_program(nofile, {}, d6));
  CHECK(d6.all().at(0).kind == DiagKind::IOError);
}
