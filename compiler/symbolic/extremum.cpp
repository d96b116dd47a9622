// The max/min class: see extremum.h.
#include "compiler/symbolic/extremum.h"
#include "compiler/symbolic/class_test.h"

#include <algorithm>
#include <optional>
#include <functional>
#include <string>

namespace pamc::sym {

using namespace GiNaC;

GINAC_IMPLEMENT_REGISTERED_CLASS_OPT(extremum, basic,
                                     print_func<print_context>(&extremum::do_print))

extremum::extremum() = default;

extremum::extremum(bool is_max, const exvector& args) : is_max_(is_max), args_(args) {}

ex& extremum::let_op(size_t i) {
  ensure_if_modifiable();
  return args_.at(i);
}

ex extremum::eval() const {
  if (flags & status_flags::evaluated) return *this;
  exvector flat;
  bool changed = false;
  for (const ex& a : args_) {
    if (is_class<extremum>(a) && ex_to<extremum>(a).is_max_ == is_max_) {
      const auto& inner = ex_to<extremum>(a).args_;
      flat.insert(flat.end(), inner.begin(), inner.end());
      changed = true;
    } else {
      flat.push_back(a);
    }
  }
  // Fold numeric (real, exact or float) arguments into one.
  exvector kept;
  bool have_num = false;
  numeric best;
  for (const ex& a : flat) {
    if (is_class<numeric>(a) && ex_to<numeric>(a).is_real()) {
      const numeric& n = ex_to<numeric>(a);
      if (!have_num || (is_max_ ? n > best : n < best)) best = n;
      if (have_num) changed = true;
      have_num = true;
    } else {
      kept.push_back(a);
    }
  }
  if (have_num) kept.push_back(best);
  // Drop duplicates (sorted by GiNaC's order; the printer sorts by text for output).
  std::sort(kept.begin(), kept.end(), ex_is_less());
  auto last = std::unique(kept.begin(), kept.end(), ex_is_equal());
  if (last != kept.end()) changed = true;
  kept.erase(last, kept.end());
  if (kept.empty()) throw std::invalid_argument("max/min of no arguments");
  if (kept.size() == 1) return kept[0];
  bool same = !changed && kept.size() == args_.size();
  for (size_t i = 0; same && i < kept.size(); ++i) same = are_ex_trivially_equal(kept[i], args_[i]);
  if (same) return this->hold();
  return dynallocate<extremum>(is_max_, kept).setflag(status_flags::evaluated);
}

int extremum::compare_same_type(const basic& other) const {
  const auto& o = static_cast<const extremum&>(other);
  if (is_max_ != o.is_max_) return is_max_ ? 1 : -1;
  if (args_.size() != o.args_.size()) return args_.size() < o.args_.size() ? -1 : 1;
  for (size_t i = 0; i < args_.size(); ++i)
    if (int c = args_[i].compare(o.args_[i])) return c;
  return 0;
}

unsigned extremum::calchash() const {
  unsigned v = static_cast<unsigned>(std::hash<std::string>{}("pamc::extremum")) ^ (is_max_ ? 0x5bd1e995U : 0x1b873593U);
  for (const ex& a : args_) v = ((v << 1) | (v >> 31)) ^ a.gethash();
  if (flags & status_flags::evaluated) {
    setflag(status_flags::hash_calculated);
    hashvalue = v;
  }
  return v;
}

void extremum::do_print(const print_context& c, unsigned) const {
  c.s << (is_max_ ? "max(" : "min(");
  for (size_t i = 0; i < args_.size(); ++i) {
    if (i) c.s << ", ";
    args_[i].print(c);
  }
  c.s << ")";
}

ex make_max(const exvector& args) { return dynallocate<extremum>(true, args); }
ex make_min(const exvector& args) { return dynallocate<extremum>(false, args); }
bool is_extremum(const ex& e) { return is_class<extremum>(e); }
bool is_max(const ex& e) { return is_class<extremum>(e) && ex_to<extremum>(e).is_max(); }
bool is_min(const ex& e) { return is_class<extremum>(e) && ex_to<extremum>(e).is_max() == false; }

// A product with one max or min, rest * min(a, b) = -rest * max(-a, -b), in one form
// whichever GiNaC's operand order made a rule produce (else the printed form followed the
// executable's layout: the layout test). Two consistent choices: a max whose arguments are
// all negations (-a: a product with a negative number) is written as the min of a, b, and a
// number c < 0 times a min with some negated argument as -c times the max of the
// negations (-0.1 * min(-x, y) prints 0.1 * max(x, -y)).
namespace {
bool negation_looking(const ex& a) {
  const ex k = is_class<mul>(a) ? a.op(a.nops() - 1) : a;
  return is_class<numeric>(k) && ex_to<numeric>(k).is_real() && ex_to<numeric>(k).is_negative();
}

}  // namespace

std::optional<ex> sign_canonical(const ex& x) {
  if (!is_class<mul>(x)) return std::nullopt;
  const ex c = x.op(x.nops() - 1);  // GiNaC keeps a product's number last
  const bool negative = is_class<numeric>(c) && ex_to<numeric>(c).is_real() && ex_to<numeric>(c).is_negative();
  ex rest = 1;
  std::optional<ex> ext;
  for (size_t k = 0; k < x.nops(); ++k) {
    if (is_class<extremum>(x.op(k))) {
      if (ext) return std::nullopt;
      ext = x.op(k);
    } else {
      rest *= x.op(k);
    }
  }
  if (!ext) return std::nullopt;
  const auto& m = ex_to<extremum>(*ext);
  const exvector& args = m.args();
  bool all_negated = std::all_of(args.begin(), args.end(), negation_looking);
  bool some_negated = std::any_of(args.begin(), args.end(), negation_looking);
  if (m.is_max() ? !all_negated : !(negative && some_negated)) return std::nullopt;
  exvector negated;
  for (const ex& a : args) negated.push_back(-a);
  return -rest * (m.is_max() ? make_min(negated) : make_max(negated));
}

}  // namespace pamc::sym
