// Load vectors read as families: see load_families.h.
#include "compiler/symbolic/load_families.h"

#include "compiler/symbolic/class_test.h"
#include "compiler/symbolic/functions.h"
#include "compiler/symbolic/print.h"
#include "compiler/symbolic/reduction.h"
#include "compiler/symbolic/rules.h"

#include <algorithm>
#include <string>
#include <vector>

namespace pamc::sym {

using namespace GiNaC;

namespace {

struct Loop {
  symbol index;
  ex lb, ub;
};

// One family: outer * loops (outermost first) over weight * unitvec(pos). The factors met
// outside every loop stay there (`outer`): they are evaluated as before, whatever the loops.
struct Family {
  std::vector<Loop> loops;
  ex outer, weight, pos;
};

// Reads v, a vector-valued expression, as families; false when some part is not one
// (a scalar added to a vector, a vector literal, a vector inside a max).
bool read_families(const ex& v, std::vector<Loop>& loops, const ex& outer, const ex& weight,
                   std::vector<Family>& out) {
  if (is_class<add>(v)) {
    for (size_t k = 0; k < v.nops(); ++k)
      if (!is_vector_valued(v.op(k)) || !read_families(v.op(k), loops, outer, weight, out)) return false;
    return true;
  }
  if (is_class<mul>(v)) {
    ex vec = 0, rest = 1;
    for (size_t k = 0; k < v.nops(); ++k) {
      if (!is_vector_valued(v.op(k))) {
        rest *= v.op(k);
      } else {
        if (!vec.is_zero()) return false;  // a product of two vectors
        vec = v.op(k);
      }
    }
    if (vec.is_zero()) return false;
    return loops.empty() ? read_families(vec, loops, outer * rest, weight, out)
                         : read_families(vec, loops, outer, weight * rest, out);
  }
  if (is_class<reduction>(v)) {
    const auto& r = ex_to<reduction>(v);
    if (r.kind() != ReduceKind::Sum) return false;
    loops.push_back({r.index(), r.lb(), r.ub()});
    bool ok = read_families(r.body(), loops, outer, weight, out);
    loops.pop_back();
    return ok;
  }
  if (pamela_function(v) == Fn::Unitvec) {
    out.push_back({loops, outer, weight, v.op(0)});
    return true;
  }
  return false;
}

ex nest(const std::vector<Loop>& loops, ex body) {
  for (auto it = loops.rbegin(); it != loops.rend(); ++it) body = make_reduction(ReduceKind::Sum, it->index, it->lb, it->ub, body);
  return body;
}

// The family with its position loop q outermost and the other loops summed into the
// weight; nullopt when the position depends on no loop or on several, when q is already
// the only loop, or when q's range depends on another loop of the family.
// A weight that may fail (N / P) moves inside q's range, which may be empty where it was
// not: then its denominators are assumed >= 1 (recorded, checked) if that makes it safe.
std::optional<ex> collapse(const Family& fam, const Facts& f, Assumptions& a) {
  int q = -1;
  for (size_t k = 0; k < fam.loops.size(); ++k) {
    if (!fam.pos.has(fam.loops[k].index)) continue;
    if (q >= 0) return std::nullopt;
    q = static_cast<int>(k);
  }
  if (q < 0 || fam.loops.size() < 2) return std::nullopt;
  const Loop& lq = fam.loops[q];
  std::vector<Loop> others;
  for (size_t k = 0; k < fam.loops.size(); ++k) {
    if (static_cast<int>(k) == q) continue;
    if (lq.lb.has(fam.loops[k].index) || lq.ub.has(fam.loops[k].index)) return std::nullopt;
    others.push_back(fam.loops[k]);
  }
  Facts in = f;
  for (const Loop& l : fam.loops) in.declare_index(l.index, l.lb, l.ub);
  if (may_fail(fam.weight, in) && !f.provably_nonneg(lq.ub - lq.lb)) {
    std::vector<symbol> dens;
    denominators(fam.weight, dens);
    std::vector<symbol> assume;
    for (const symbol& d : dens) {
      if (in.mentions_index(d) || in.provably_positive(d)) continue;
      in.add_lower(d, 1, false);
      assume.push_back(d);
    }
    if (assume.empty() || may_fail(fam.weight, in)) return std::nullopt;
    for (const symbol& d : assume)
      if (a.items.insert(to_pamela(d) + " >= 1").second) a.nonneg.push_back(d - 1);
  }
  ex load = nest(others, fam.weight);
  return fam.outer * make_reduction(ReduceKind::Sum, lq.index, lq.lb, lq.ub, load * unitvec(fam.pos));
}

}  // namespace

std::optional<ex> rule_vmax_collapse(const ex& e, const Facts& f, Assumptions& a) {
  if (pamela_function(e) != Fn::VectorMax) return std::nullopt;
  std::vector<Loop> loops;
  std::vector<Family> fams;
  if (!read_families(e.op(0), loops, 1, 1, fams)) return std::nullopt;
  // In printed-text order: GiNaC's operand order follows the executable's layout, and where
  // two rebuilt sums are alike, the first one added names the loop index.
  std::vector<std::pair<std::string, size_t>> order;
  for (size_t k = 0; k < fams.size(); ++k)
    order.emplace_back(to_pamela(fams[k].outer * nest(fams[k].loops, fams[k].weight * unitvec(fams[k].pos))), k);
  std::sort(order.begin(), order.end());
  std::vector<Family> sorted;
  for (const auto& [text, k] : order) sorted.push_back(fams[k]);
  fams = sorted;
  ex v = 0;
  bool changed = false;
  std::vector<ex> parts;
  for (const Family& fam : fams) {
    if (auto c = collapse(fam, f, a)) {
      parts.push_back(*c);
      changed = true;
    } else {
      parts.push_back(fam.outer * nest(fam.loops, fam.weight * unitvec(fam.pos)));
    }
  }
  // Alike parts (the same sum over loops named p and q) are written as the first one, so
  // the index name GiNaC keeps when it adds them up does not depend on its term order.
  for (size_t k = 0; k < parts.size(); ++k) {
    for (size_t j = 0; j < k; ++j)
      if (parts[k].is_equal(parts[j])) {
        parts[k] = parts[j];
        break;
      }
    v += parts[k];
  }
  if (!changed) return std::nullopt;
  return vector_max(v);
}

}  // namespace pamc::sym
