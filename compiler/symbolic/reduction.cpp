// The reduction class: see reduction.h.
#include "compiler/symbolic/reduction.h"
#include "compiler/symbolic/class_test.h"

#include "compiler/symbolic/extremum.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace pamc::sym {

using namespace GiNaC;

GINAC_IMPLEMENT_REGISTERED_CLASS_OPT(reduction, basic,
                                     print_func<print_context>(&reduction::do_print))

reduction::reduction() : index_(symbol("i")), lb_(0), ub_(0), body_(0) {}

reduction::reduction(ReduceKind kind, const symbol& index, const ex& lb, const ex& ub, const ex& body,
                     bool empty_is_zero)
    : kind_(kind), index_(index), lb_(lb), ub_(ub), body_(body), empty_is_zero_(empty_is_zero) {}

ex reduction::op(size_t i) const {
  switch (i) {
    case 0: return lb_;
    case 1: return ub_;
    case 2: return body_;
  }
  throw std::range_error("reduction::op(): no such operand");
}

ex& reduction::let_op(size_t i) {
  ensure_if_modifiable();
  switch (i) {
    case 0: return lb_;
    case 1: return ub_;
    case 2: return body_;
  }
  throw std::range_error("reduction::let_op(): no such operand");
}

ex reduction::eval() const { return this->hold(); }

ex reduction::subs(const exmap& m, unsigned options) const {
  exmap inner;
  bool capture = false;
  for (const auto& kv : m) {
    if (kv.first.is_equal(index_)) continue;  // the bound index is never substituted
    if (kv.second.has(index_)) capture = true;
    inner.insert(kv);
  }
  ex idx = index_;
  ex body = body_;
  if (capture) {  // rename the index so a substituted value cannot be captured
    symbol fresh(index().get_name());
    body = body_.subs(exmap{{index_, fresh}});
    idx = fresh;
  }
  ex nl = lb_.subs(m, options), nu = ub_.subs(m, options), nb = body.subs(inner, options);
  if (!capture && are_ex_trivially_equal(nl, lb_) && are_ex_trivially_equal(nu, ub_) &&
      are_ex_trivially_equal(nb, body_))
    return subs_one_level(m, options);
  const reduction& r = dynallocate<reduction>(kind_, ex_to<symbol>(idx), nl, nu, nb, empty_is_zero_);
  return r.subs_one_level(m, options);
}

namespace {
// Nesting height of reductions in e: a bound index is renamed to canon(height of its body)
// for comparison, so an outer index never collides with an inner one.
int height(const ex& e) {
  int h = 0;
  if (is_class<reduction>(e)) return 1 + height(ex_to<reduction>(e).body());
  for (size_t i = 0; i < e.nops(); ++i) h = std::max(h, height(e.op(i)));
  return h;
}
const symbol& canon(int h) {
  static std::vector<symbol> syms;
  while (static_cast<int>(syms.size()) <= h) syms.emplace_back("_k" + std::to_string(syms.size()));
  return syms[h];
}
}  // namespace

int reduction::compare_same_type(const basic& other) const {
  const auto& o = static_cast<const reduction&>(other);
  if (kind_ != o.kind_) return kind_ < o.kind_ ? -1 : 1;
  if (empty_is_zero_ != o.empty_is_zero_) return empty_is_zero_ ? 1 : -1;
  if (int c = lb_.compare(o.lb_)) return c;
  if (int c = ub_.compare(o.ub_)) return c;
  if (index_.is_equal(o.index_)) return body_.compare(o.body_);
  int ha = height(body_), hb = height(o.body_);
  if (ha != hb) return ha < hb ? -1 : 1;
  const symbol& k = canon(ha);
  return body_.subs(exmap{{index_, k}}).compare(o.body_.subs(exmap{{o.index_, k}}));
}

namespace {

inline unsigned rotl(unsigned v) { return (v << 1) | (v >> 31); }

// A structural hash that gives every index bound by a reduction inside e (listed in
// `bound`, outermost first) the value of its nesting level instead of its own, so
// alpha-equivalent expressions hash alike while bodies that differ anywhere (a constant deep
// inside) hash apart. Sums, products and max/min combine their operands commutatively: their
// operand order follows GiNaC's ordering, which depends on the very index symbols renamed
// here. Leaves (numbers, free symbols) use GiNaC's own hash; a node's class enters through
// its class-info address, as GiNaC's seeds do.
unsigned alpha_hash(const ex& e, std::vector<ex>& bound);

unsigned reduction_hash(const reduction& r, std::vector<ex>& bound) {
  unsigned v = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(&r.get_class_info()) >> 3) * 0x9e3779b9U;
  v ^= static_cast<unsigned>(r.kind()) * 0x85ebca6bU ^ (r.empty_is_zero() ? 0x5bd1e995U : 0U);
  v = rotl(v) ^ alpha_hash(r.lb(), bound);
  v = rotl(v) ^ alpha_hash(r.ub(), bound);
  bound.push_back(r.index_ex());
  v = rotl(v) ^ alpha_hash(r.body(), bound);
  bound.pop_back();
  return v;
}

unsigned alpha_hash(const ex& e, std::vector<ex>& bound) {
  if (e.nops() == 0) {
    if (is_class<symbol>(e))
      for (size_t k = bound.size(); k-- > 0;)
        if (are_ex_trivially_equal(e, bound[k]) || e.is_equal(bound[k])) return 0x27d4eb2fU * static_cast<unsigned>(k + 1);
    return e.gethash();
  }
  if (is_class<reduction>(e)) return reduction_hash(ex_to<reduction>(e), bound);
  const basic& b = ex_to<basic>(e);
  unsigned v = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(&b.get_class_info()) >> 3) * 0x9e3779b9U;
  if (is_class<function>(e)) v ^= ex_to<function>(e).get_serial() * 0xc2b2ae35U;
  bool commutative = is_class<add>(e) || is_class<mul>(e) || is_class<extremum>(e);
  unsigned acc = 0;
  for (size_t i = 0; i < e.nops(); ++i) {
    unsigned h = alpha_hash(e.op(i), bound);
    if (commutative)
      acc += h * 0x01000193U ^ (h >> 15);
    else
      v = rotl(v) ^ h;
  }
  return v ^ acc;
}

}  // namespace

unsigned reduction::calchash() const {
  // The whole reduction, body included, with its index (and any inner one) renamed to its
  // nesting level: alpha-equivalent reductions hash alike, reductions whose bodies differ
  // hash apart (hash tables keyed by expressions would otherwise chain every reduction with
  // the same range into one bucket).
  std::vector<ex> bound;
  unsigned v = reduction_hash(*this, bound);
  if (flags & status_flags::evaluated) {
    setflag(status_flags::hash_calculated);
    hashvalue = v;
  }
  return v;
}

void reduction::do_print(const print_context& c, unsigned) const {
  static const char* names[] = {"sum", "max", "min"};
  c.s << names[static_cast<int>(kind_)] << " (" << index_ << " = " << lb_ << ", " << ub_ << ") { ";
  body_.print(c);
  c.s << " }";
}

ex make_reduction(ReduceKind kind, const symbol& index, const ex& lb, const ex& ub, const ex& body,
                  bool empty_is_zero) {
  return dynallocate<reduction>(kind, index, lb, ub, body, empty_is_zero && kind != ReduceKind::Sum);
}

ex rebuild_reduction(const reduction& r, ReduceKind kind, const ex& lb, const ex& ub, const ex& body) {
  return make_reduction(kind, r.index(), lb, ub, body, r.empty_is_zero());
}

bool is_reduction(const ex& e) { return is_class<reduction>(e); }

long count_reductions(const ex& e) {
  long n = is_class<reduction>(e) ? 1 : 0;
  for (size_t i = 0; i < e.nops(); ++i) n += count_reductions(e.op(i));
  return n;
}

const reduction& as_reduction(const ex& e) { return ex_to<reduction>(e); }

}  // namespace pamc::sym
