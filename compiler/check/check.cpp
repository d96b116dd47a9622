// Checks of a loaded model, in this order:
//   1. declarations: duplicates (across all files), parameters (numeric only, no formals),
//      duplicate formals, builtin names taken, regions (one block per name, known counter
//      names: ma_counters());
//   2. each declaration's expressions: names in scope, arity, types (a checker that
//      synthesizes each node's type and compares it with what its context needs; a node
//      whose type could not be found is poisoned and reports nothing more);
//   3. cycles among declarations (through bodies, parameter defaults and bounds).
// Scopes: a formal is visible in its own equation's body only; a loop or reduction index
// only in that loop's body (not in its bounds); locals shadow declarations; declarations
// are visible everywhere, in every file, before or after their own declaration.
#include <algorithm>
#include <functional>
#include <type_traits>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "compiler/check/check.h"
#include "compiler/diag/suggest.h"

namespace pamc {

const std::vector<Builtin>& builtin_functions() {
  static const std::vector<Builtin> table = {
      {"max", 1, -1}, {"min", 1, -1}, {"sqrt", 1, 1},  {"log", 1, 1},   {"log2", 1, 1},
      {"exp", 1, 1},  {"ceil", 1, 1}, {"floor", 1, 1}, {"abs", 1, 1}, {"unitvec", 1, 1}, {"gcd", 2, 2},
  };
  return table;
}

const Builtin* find_builtin(const std::string& name) {
  for (const Builtin& b : builtin_functions())
    if (name == b.name) return &b;
  return nullptr;
}

const std::vector<MaCounter>& ma_counters() {
  static const std::vector<MaCounter> table = {
      {"vector_flops", "vector floating-point operations"},
      {"vector_loadstore", "vector load and store operations"},
      {"avl", "average vector length"},
      {"mv", "MV score (multi-streamed, vectorized: 0 to 3)"},
      {"scalar_flops", "scalar floating-point operations"},
      {"scalar_loadstore", "scalar load and store operations"},
      {"cycles", "cycles"},
      {"stalled_cycles", "stalled cycles"},
      {"vector_load_stride", "vector load stride"},
      {"vector_load_allocated", "vector loads allocated"},
      {"dcache_misses", "data cache misses"},
      {"time", "predicted time of one execution of the region"},
  };
  return table;
}

const MaCounter* find_ma_counter(const std::string& name) {
  for (const MaCounter& c : ma_counters())
    if (name == c.name) return &c;
  return nullptr;
}

namespace {

using ast::Kind;
using ast::Node;
using ast::NodeP;
using ast::Type;

std::string quote(const std::string& s) { return "'" + s + "'"; }

std::string args_text(int n) { return std::to_string(n) + (n == 1 ? " argument" : " arguments"); }

// What a message names ("'max'", "seq (i = ...)"), made only when a message is: the checker
// visits every node of every declaration, and a model without errors prints nothing.
class What {
 public:
  What(const char* text) : text_(text) {}  // NOLINT: a literal is a description
  template <class F, class = std::enable_if_t<std::is_invocable_r_v<std::string, const F&>>>
  What(F make) : make_(std::move(make)) {}  // NOLINT
  std::string str() const { return make_ ? make_() : std::string(text_); }

 private:
  const char* text_ = "";
  std::function<std::string()> make_;
};
std::string operator+(const std::string& a, const What& b) { return a + b.str(); }
std::string operator+(const char* a, const What& b) { return a + b.str(); }
std::string operator+(const What& a, const char* b) { return a.str() + b; }

bool is_fcfs_decl(const ast::Decl& d) { return d.name == "fcfs" && d.type == Type::Resource && d.is_parameter; }

class Checker {
 public:
  Checker(Program& p, Diagnostics& diags) : prog_(p), diags_(diags) {}

  void run() {
    declare();
    for (std::size_t i = 0; i < decls_.size(); ++i) check_decl(i);
    find_cycles();
  }

 private:
  struct Local {
    std::string name;
    const char* what;  // "loop index", "formal parameter"
  };

  // ---- 1. declarations ----------------------------------------------------------------
  void declare() {
    for (ast::Module& m : prog_.modules) {
      for (ast::Decl& d : m.decls) {
        if (is_fcfs_decl(d)) continue;  // the seed's `resource parameter fcfs(i)`: changes nothing
        if (d.name == "fcfs" || find_builtin(d.name)) {
          diags_.error(d.name_loc, DiagKind::DuplicateDefinition,
                       quote(d.name) + (d.name == "fcfs" ? " is the predefined FCFS resource array"
                                                         : " is a builtin function") +
                           " and cannot be redefined");
          continue;
        }
        if (!d.region.empty() && !check_region(d)) continue;
        auto [it, fresh] = index_.emplace(d.name, decls_.size());
        if (fresh) lookup_.emplace(it->first, decls_.size());
        if (!fresh) {
          const ast::Decl& first = *decls_[it->second];
          diags_.error(d.name_loc, DiagKind::DuplicateDefinition,
                       d.region.empty() ? quote(d.name) + " is already declared"
                                        : "counter " + quote(ast::split_counter_name(d.name).second) +
                                              " of region " + quote(d.region) + " is already declared");
          diags_.note(first.name_loc, "first declaration of " + quote(d.name) + " is here");
          continue;
        }
        if (d.is_parameter && d.type != Type::Numeric)
          diags_.error(d.loc, DiagKind::InvalidParameter,
                       std::string("only numeric equations can be parameters, not ") + ast::type_name(d.type) +
                           " " + quote(d.name));
        else if (d.is_parameter && !d.formals.empty())
          diags_.error(d.formal_locs.empty() ? d.name_loc : d.formal_locs[0], DiagKind::InvalidParameter,
                       "parameter " + quote(d.name) + " cannot have formal parameters");
        for (std::size_t i = 0; i < d.formals.size(); ++i)
          for (std::size_t j = 0; j < i; ++j)
            if (d.formals[i] == d.formals[j])
              diags_.error(d.formal_locs[i], DiagKind::DuplicateDefinition,
                           "formal parameter " + quote(d.formals[i]) + " appears twice in " + quote(d.name));
        decls_.push_back(&d);
      }
    }
    for (ast::Decl* d : decls_) {
      prog_.decls.push_back(d);
      prog_.by_name[d->name] = d;
    }
    deps_.resize(decls_.size());
  }

  // A region's counters: one block per region name (across all files), known counter names.
  bool check_region(const ast::Decl& d) {
    auto same = [](const Loc& a, const Loc& b) { return a.file == b.file && a.line == b.line && a.col == b.col; };
    auto [it, fresh] = regions_.emplace(d.region, d.region_loc);
    if (!fresh && !same(it->second, d.region_loc)) {
      // reported once per block, at its name
      if (duplicate_blocks_.insert({d.region_loc.file, d.region_loc.line, d.region_loc.col}).second) {
        diags_.error(d.region_loc, DiagKind::DuplicateDefinition, "region " + quote(d.region) + " is already declared");
        diags_.note(it->second, "first declaration of region " + quote(d.region) + " is here");
      }
      return false;
    }
    std::string counter = ast::split_counter_name(d.name).second;
    if (!find_ma_counter(counter)) {
      std::string known;
      for (const MaCounter& c : ma_counters()) known += std::string(known.empty() ? "" : ", ") + c.name;
      diags_.error(d.name_loc, DiagKind::UnknownCounter,
                   quote(counter) + " is not a workload counter (one of: " + known + ")");
      return false;
    }
    return true;
  }

  // ---- 2. expressions -----------------------------------------------------------------
  void check_decl(std::size_t i) {
    ast::Decl& d = *decls_[i];
    current_ = i;
    locals_.clear();
    proc_ifs_.clear();
    for (auto& f : d.formals) locals_.push_back({f, "formal parameter"});
    if (d.body) {
      if (d.is_parameter)
        expect(d.body, Type::Numeric, [&] { return "the default value of parameter " + quote(d.name); });
      else
        expect(d.body, d.type, [&] { return std::string("the body of ") + ast::type_name(d.type) + " " + quote(d.name); });
    }
    for (auto& b : d.bounds) expect(b.value, Type::Numeric, [&] { return "a bound of parameter " + quote(d.name); });
    if (!proc_ifs_.empty() && d.body) d.body = retype_ifs(d.body);
  }

  // Checks `e` and reports a TypeMismatch when its type is not `want`.
  void expect(const NodeP& e, Type want, const What& context) {
    std::optional<Type> got = synth(e);
    if (got && *got != want) mismatch(e, want, *got, context.str());
  }

  void mismatch(const NodeP& e, Type want, Type got, const std::string& context) {
    std::string what = e->kind == Kind::Name || e->kind == Kind::Call ? quote(e->name) + " is a " + ast::type_name(got)
                                                                      : "this is a " + std::string(ast::type_name(got)) + " expression";
    diags_.error(e->loc, DiagKind::TypeMismatch,
                 context + " must be " + (want == Type::Numeric ? "numeric" : want == Type::Process ? "a process" : "a resource") + ", but " + what);
  }

  const Local* find_local(const std::string& name) const {
    for (auto it = locals_.rbegin(); it != locals_.rend(); ++it)
      if (it->name == name) return &*it;
    return nullptr;
  }

  void undefined(const NodeP& e) {
    std::string best;
    std::size_t best_d = e->name.size() <= 3 ? 1 : e->name.size() <= 6 ? 2 : 3;
    auto consider = [&](const std::string& c) {
      std::size_t dist = edit_distance(e->name, c);
      if (dist <= best_d && dist > 0 && 2 * dist < std::max(e->name.size(), c.size()) &&
          (best.empty() || dist < best_d)) {
        best = c;
        best_d = dist;
      }
    };
    for (auto& l : locals_) consider(l.name);
    for (auto& [name, idx] : index_) consider(name);
    for (auto& b : builtin_functions()) consider(b.name);
    consider("fcfs");
    if (std::find(bound_indices_.begin(), bound_indices_.end(), e->name) != bound_indices_.end()) {
      diags_.error(e->loc, DiagKind::UndefinedName,
                   "loop index " + quote(e->name) + " is visible only in the loop's body, not in its bounds");
      return;
    }
    std::string msg = "undefined name " + quote(e->name);
    if (!best.empty()) msg += "; did you mean " + quote(best) + "?";
    diags_.error(e->loc, DiagKind::UndefinedName, msg);
  }

  std::optional<Type> check_args(const NodeP& e, std::size_t from, const What& what) {
    bool ok = true;
    for (std::size_t k = from; k < e->kids.size(); ++k) {
      std::optional<Type> t = synth(e->kids[k]);
      if (!t) ok = false;
      else if (*t != Type::Numeric) {
        mismatch(e->kids[k], Type::Numeric, *t, "an argument of " + what);
        ok = false;
      }
    }
    (void)ok;  // the type of a call is known even when an argument is wrong
    return Type::Numeric;
  }

  bool arity(const NodeP& e, int min, int max, const What& what) {
    int n = static_cast<int>(e->kids.size());
    if (n >= min && (max < 0 || n <= max)) return true;
    std::string want = max < 0 ? "at least " + args_text(min) : min == max ? args_text(min)
                                                              : std::to_string(min) + " to " + args_text(max);
    diags_.error(e->loc, DiagKind::ArityMismatch, what + " takes " + want + ", not " + std::to_string(n));
    return false;
  }

  std::optional<Type> name_or_call(const NodeP& e) {
    bool call = e->kind == Kind::Call;
    if (const Local* l = find_local(e->name)) {
      if (call) {
        diags_.error(e->loc, DiagKind::ArityMismatch,
                     quote(e->name) + " is a " + l->what + " and takes no arguments");
        return std::nullopt;
      }
      return Type::Numeric;
    }
    auto it = lookup_.find(e->name);
    if (it != lookup_.end()) {
      const ast::Decl& d = *decls_[it->second];
      deps_[current_].push_back({it->second, e->loc});
      int formals = static_cast<int>(d.formals.size());
      if (d.is_parameter) formals = 0;
      const What name = [&] { return quote(e->name); };
      if (!arity(e, formals, formals, name)) {
        for (auto& k : e->kids) synth(k);
        return d.type;
      }
      check_args(e, 0, name);
      return d.type;
    }
    if (e->name == "fcfs") {
      if (arity(e, 2, 2, "fcfs")) check_args(e, 0, "fcfs");
      return Type::Resource;
    }
    if (const Builtin* b = find_builtin(e->name)) {
      if (!call) {
        diags_.error(e->loc, DiagKind::ArityMismatch,
                     quote(e->name) + " is a builtin function: call it with " +
                         (b->max_args < 0 ? "one or more arguments" : args_text(b->min_args)));
        return std::nullopt;
      }
      const What name = [&] { return quote(e->name); };
      if (arity(e, b->min_args, b->max_args, name)) check_args(e, 0, name);
      return Type::Numeric;
    }
    undefined(e);
    for (auto& k : e->kids) synth(k);
    return std::nullopt;
  }

  // All kids numeric -> numeric.
  std::optional<Type> numeric_op(const NodeP& e, const What& what) {
    bool ok = true;
    for (auto& k : e->kids) {
      std::optional<Type> t = synth(k);
      if (!t) ok = false;
      else if (*t != Type::Numeric) {
        mismatch(k, Type::Numeric, *t, "an operand of " + what);
        ok = false;
      }
    }
    (void)ok;  // the result is numeric even when an operand is wrong
    return Type::Numeric;
  }

  // Loop bounds in the current scope, the body with the index visible.
  bool loop(const NodeP& e, Type body_type, const What& what) {
    bool ok = true;
    bound_indices_.push_back(e->name);
    for (int k = 0; k < 2; ++k) {
      std::optional<Type> t = synth(e->kids[k]);
      if (!t) ok = false;
      else if (*t != Type::Numeric) {
        mismatch(e->kids[k], Type::Numeric, *t, std::string(k == 0 ? "the lower" : "the upper") + " bound of " + what);
        ok = false;
      }
    }
    bound_indices_.pop_back();
    locals_.push_back({e->name, "loop index"});
    std::optional<Type> t = synth(e->kids[2]);
    locals_.pop_back();
    if (!t) return false;
    if (*t != body_type) {
      mismatch(e->kids[2], body_type, *t, "the body of " + what);
      return false;
    }
    return ok;
  }

  std::optional<Type> synth(const NodeP& e) {
    switch (e->kind) {
      case Kind::Number: return Type::Numeric;
      case Kind::Name: case Kind::Call: return name_or_call(e);
      case Kind::Unary:
      case Kind::Binary: return numeric_op(e, [&] { return std::string("'") + ast::op_spelling(e->op) + "'"; });
      case Kind::Vector: return numeric_op(e, "a vector");
      case Kind::Group: return synth(e->kids[0]);
      case Kind::Reduce:
        loop(e, Type::Numeric, [&] { return std::string(ast::op_spelling(e->op)) + " (" + e->name + " = ...)"; });
        return Type::Numeric;
      case Kind::SeqLoop: case Kind::ParLoop:
        loop(e, Type::Process, [&] { return std::string(e->kind == Kind::SeqLoop ? "seq" : "par") + " (" + e->name + " = ...)"; });
        return Type::Process;
      case Kind::Delay: {
        if (!arity(e, 1, 1, "delay")) return Type::Process;
        std::optional<Type> t = synth(e->kids[0]);
        if (t && *t != Type::Numeric) mismatch(e->kids[0], Type::Numeric, *t, "the time of delay");
        return Type::Process;
      }
      case Kind::Use: {
        if (!arity(e, 2, 2, "use")) return Type::Process;
        std::optional<Type> r = synth(e->kids[0]), t = synth(e->kids[1]);
        bool ok = r && t;
        if (r && *r != Type::Resource) {
          mismatch(e->kids[0], Type::Resource, *r, "the first argument of use");
          ok = false;
        }
        if (t && *t != Type::Numeric) {
          mismatch(e->kids[1], Type::Numeric, *t, "the time of use");
          ok = false;
        }
        (void)ok;
        return Type::Process;
      }
      case Kind::Seq: case Kind::Par: {
        bool ok = true;
        for (auto& k : e->kids) {
          std::optional<Type> t = synth(k);
          if (!t) ok = false;
          else if (*t != Type::Process) {
            mismatch(k, Type::Process, *t, std::string("an operand of '") + (e->kind == Kind::Seq ? ";" : "||") + "'");
            ok = false;
          }
        }
        (void)ok;
        return Type::Process;
      }
      case Kind::IfProc: case Kind::IfExpr: {
        std::optional<Type> c = synth(e->kids[0]);
        bool ok = c.has_value();
        if (c && *c != Type::Numeric) {
          mismatch(e->kids[0], Type::Numeric, *c, "the condition of if");
          ok = false;
        }
        std::optional<Type> a = synth(e->kids[1]);
        if (e->kids.size() < 3) {
          if (a && *a != Type::Process) {
            diags_.error(e->loc, DiagKind::TypeMismatch,
                         std::string("an if without else must be a process, but its branch is a ") +
                             ast::type_name(*a) + " (a numeric if needs an else)");
            return std::nullopt;
          }
          return ok && a ? std::optional<Type>(Type::Process) : std::nullopt;
        }
        std::optional<Type> b = synth(e->kids[2]);
        if (!a || !b || !ok) return std::nullopt;
        if (*a == Type::Resource || *a != *b) {
          const NodeP& bad = *a == Type::Resource ? e->kids[1] : e->kids[2];
          Type want = *a == Type::Resource ? Type::Numeric : *a;
          mismatch(bad, want, *a == Type::Resource ? *a : *b,
                   *a == Type::Resource ? "a branch of if" : "the else branch of this if");
          return std::nullopt;
        }
        if (*a == Type::Process && e->kind == Kind::IfExpr) proc_ifs_.insert(e.get());
        return *a;
      }
    }
    return std::nullopt;
  }

  // Rebuilds the nodes on the way to each IfExpr that turned out to be a process.
  NodeP retype_ifs(const NodeP& e) {
    const bool retyped = proc_ifs_.count(e.get()) > 0;
    std::vector<NodeP> kids;  // made at the first kid that changes (most subtrees hold no if)
    for (std::size_t i = 0; i < e->kids.size(); ++i) {
      NodeP k = e->kids[i] ? retype_ifs(e->kids[i]) : e->kids[i];
      if (kids.empty() && k == e->kids[i]) continue;
      if (kids.empty()) kids.assign(e->kids.begin(), e->kids.begin() + static_cast<long>(i));
      kids.push_back(std::move(k));
    }
    if (!retyped && kids.empty()) return e;
    auto n = std::make_shared<Node>(*e);
    if (!kids.empty()) n->kids = std::move(kids);
    if (retyped) n->kind = Kind::IfProc;
    return n;
  }

  // ---- 3. cycles ----------------------------------------------------------------------
  // Iterative depth-first search; each cycle is reported once, at the declaration where
  // the search first entered it, naming the whole cycle.
  void find_cycles() {
    std::vector<int> color(decls_.size(), 0);  // 0 new, 1 on the path, 2 done
    std::vector<bool> reported(decls_.size(), false);
    for (std::size_t root = 0; root < decls_.size(); ++root) {
      if (color[root]) continue;
      std::vector<std::pair<std::size_t, std::size_t>> stack{{root, 0}};  // (decl, next edge)
      color[root] = 1;
      while (!stack.empty()) {
        auto& [v, next] = stack.back();
        if (next == deps_[v].size()) {
          color[v] = 2;
          stack.pop_back();
          continue;
        }
        std::size_t w = deps_[v][next++].target;
        if (color[w] == 0) {
          color[w] = 1;
          stack.push_back({w, 0});
        } else if (color[w] == 1) {
          std::size_t from = 0;
          while (stack[from].first != w) ++from;
          bool seen = false;
          for (std::size_t k = from; k < stack.size(); ++k) seen = seen || reported[stack[k].first];
          if (seen) continue;
          std::string chain;
          for (std::size_t k = from; k < stack.size(); ++k) {
            chain += decls_[stack[k].first]->name + " -> ";
            reported[stack[k].first] = true;
          }
          chain += decls_[w]->name;
          diags_.error(decls_[w]->name_loc, DiagKind::CyclicDefinition,
                       quote(decls_[w]->name) + " is defined in terms of itself: " + chain);
        }
      }
    }
  }

  struct Dep {
    std::size_t target;
    Loc loc;
  };

  Program& prog_;
  Diagnostics& diags_;
  std::vector<ast::Decl*> decls_;
  std::map<std::string, std::size_t> index_;
  // index_ hashed, for the look-up at every name and call (index_'s order is the order of
  // "did you mean" candidates); keys are index_'s own strings.
  std::unordered_map<std::string_view, std::size_t> lookup_;
  std::map<std::string, Loc> regions_;  // region name -> its block's name
  std::set<std::tuple<const SourceFile*, std::uint32_t, std::uint32_t>> duplicate_blocks_;
  std::vector<std::vector<Dep>> deps_;
  std::size_t current_ = 0;
  std::vector<Local> locals_;
  std::vector<std::string> bound_indices_;  // indices of the loops whose bounds are being checked
  std::unordered_set<const Node*> proc_ifs_;
};

}  // namespace

namespace {

std::string number_text(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// A resource's identity is its fcfs index (SPEC 2), so two names with one index are one
// server. Warned where it is certain from the text: two resources `fcfs(k, m)` with the same
// number k, and a resource `fcfs(k, m)` inside a family `r(p) = fcfs(p + c, m)` (k >= c:
// it is r(k - c)).
void warn_aliased_resources(const Program& program, Diagnostics& diags) {
  FixedResources fixed = fixed_resources(program);
  const auto& singles = fixed.singles;
  const auto& families = fixed.families;
  auto where = [](const ast::Decl* d) { return d->loc.file->path + ":" + std::to_string(d->loc.line); };
  auto num = number_text;
  for (std::size_t a = 0; a < singles.size(); ++a)
    for (std::size_t b = a + 1; b < singles.size(); ++b)
      if (singles[a].index == singles[b].index)
        diags.warning(singles[b].decl->name_loc, DiagKind::AliasedResource,
                      "resource '" + singles[b].decl->name + "' is fcfs(" + num(singles[b].index) + ", ...) like '" +
                          singles[a].decl->name + "' (" + where(singles[a].decl) + "): one server under two names");
  for (const FixedResources::Single& s : singles)
    for (const FixedResources::Family& f : families)
      if (s.index >= f.offset && s.index == std::floor(s.index))
        diags.warning(s.decl->name_loc, DiagKind::AliasedResource,
                      "resource '" + s.decl->name + "' is fcfs(" + num(s.index) + ", ...), the same server as " +
                          f.decl->name + "(" + num(s.index - f.offset) + ") (" + where(f.decl) +
                          "): give it an index the family does not reach");
}

}  // namespace

FixedResources fixed_resources(const Program& program) {
  auto number = [](const NodeP& n) -> std::optional<double> {
    if (!n || n->kind != Kind::Number) return std::nullopt;
    char* end = nullptr;
    double v = std::strtod(n->name.c_str(), &end);
    if (end == n->name.c_str()) return std::nullopt;
    return v;
  };
  FixedResources out;
  for (const ast::Decl* d : program.decls) {
    if (d->type != Type::Resource || d->is_parameter) continue;
    if (!d->body || d->body->kind != Kind::Call || d->body->name != "fcfs" || d->body->kids.size() != 2) {
      out.complete = false;  // a resource defined some other way: its index is not fixed here
      continue;
    }
    const NodeP& idx = d->body->kids[0];
    std::size_t before = out.singles.size() + out.families.size();
    if (d->formals.empty()) {
      if (auto k = number(idx)) out.singles.push_back({d, *k});
    } else if (d->formals.size() == 1) {
      if (idx->kind == Kind::Name && idx->name == d->formals[0]) {
        out.families.push_back({d, 0});
      } else if (idx->kind == Kind::Binary && idx->op == ast::Op::Add && idx->kids.size() == 2 &&
                 idx->kids[0]->kind == Kind::Name &&
                 idx->kids[0]->name == d->formals[0]) {
        if (auto c = number(idx->kids[1])) out.families.push_back({d, *c});
      }
    }
    if (out.singles.size() + out.families.size() == before) out.complete = false;
  }
  return out;
}

std::unique_ptr<Program> check_modules(std::vector<ast::Module> modules, Diagnostics& diags) {
  auto program = std::make_unique<Program>();
  program->modules = std::move(modules);
  if (!program->modules.empty()) program->main_file = program->modules.back().file;
  std::size_t before = diags.error_count();
  Checker(*program, diags).run();
  if (diags.error_count() > before) return nullptr;
  warn_aliased_resources(*program, diags);
  return program;
}

}  // namespace pamc
