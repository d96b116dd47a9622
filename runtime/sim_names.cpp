// The model's names for simulated resources (`pamc simulate` prints `cpu(3) = fcfs(3, 1)`).
//
// The normalized body keeps, on each fcfs(...) call it substituted, the place where that call
// is written: in a resource declaration, it names the declaration. A family member's argument
// is found from the index it reached: the declaration's index expression is evaluated at the
// parameters' values for arguments 0 and 1 (link(p) = fcfs(P + p, 1) at P = 3: 3 and 4), and
// where it grows by a constant step the member is (index - f(0)) / step, checked by
// evaluating f there. An index the declaration's text does not determine this way (several
// formals, a step of 0, names that are not parameters) leaves the resource unnamed.
#include <cmath>
#include <optional>

#include "compiler/check/check.h"
#include "runtime/sim_expr.h"
#include "runtime/simulate.h"

namespace pamc {
namespace {

bool same_place(const Loc& a, const Loc& b) {
  return a.valid() && a.file == b.file && a.line == b.line && a.col == b.col;
}

// Each declaration's index expression, compiled once (its formal read as a loop index).
class Members {
 public:
  explicit Members(const std::map<std::string, double>& values) : ec_(values) {}

  std::string name(const ast::Decl& d, double index) {
    if (d.formals.empty()) return d.name;
    if (d.formals.size() != 1) return {};
    const sim::Scalar* f = index_of(d);
    if (!f) return {};
    auto f0 = at(*f, 0), f1 = at(*f, 1);
    if (!f0 || !f1 || *f1 == *f0) return {};
    const double arg = (index - *f0) / (*f1 - *f0);
    auto back = at(*f, arg);
    if (!std::isfinite(arg) || !back || *back != index) return {};
    return d.name + "(" + sim::fmt_num(arg) + ")";
  }

 private:
  const sim::Scalar* index_of(const ast::Decl& d) {
    auto it = compiled_.find(&d);
    if (it == compiled_.end()) {
      std::optional<sim::Scalar> f;
      ec_.push_index(d.formals[0]);
      try {
        f = ec_.scalar(d.body->kids[0], "a resource index");
      } catch (const CompileError&) {  // names that are not parameters: no name
      }
      ec_.pop_index();
      it = compiled_.emplace(&d, f).first;
    }
    return it->second ? &*it->second : nullptr;
  }
  static std::optional<double> at(const sim::Scalar& f, double x) {
    sim::Frame frame{x, nullptr};
    try {
      return f(&frame);
    } catch (const CompileError&) {
      return std::nullopt;
    }
  }

  sim::ExprCompiler ec_;
  std::map<const ast::Decl*, std::optional<sim::Scalar>> compiled_;
};

}  // namespace

void name_resources(const Program& program, const std::map<std::string, double>& values, SimResult& result) {
  Members members(values);
  for (SimResourceStats& s : result.resources) {
    s.name.clear();
    for (const ast::Decl* d : program.decls) {
      if (d->type != ast::Type::Resource || d->is_parameter || !d->body || d->body->kind != ast::Kind::Call ||
          d->body->name != "fcfs" || d->body->kids.size() != 2 || !same_place(d->body->loc, s.def))
        continue;
      s.name = members.name(*d, static_cast<double>(s.index));
      break;
    }
  }
}

}  // namespace pamc
