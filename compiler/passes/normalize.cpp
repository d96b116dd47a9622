// normalize: the seed's normal form by substitution (seed 002, section 2.1).
//
// Every reference to a non-parameter equation is replaced by that equation's normalized
// body, with the call's actual arguments substituted for its formals. Bound names (loop
// indices of seq/par/sum/max/min) are renamed when an inserted expression has a free name
// they would capture, so substitution never changes which variable a name means.
#include "compiler/passes/normalize.h"
#include "compiler/passes/nesting.h"

#include <functional>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <algorithm>

namespace pamc {
namespace {

using ast::Kind;
using ast::NodeP;

bool is_binder(Kind k) { return k == Kind::Reduce || k == Kind::SeqLoop || k == Kind::ParLoop; }

// Free names of an expression (names not bound by a loop inside it).
void collect_free(const NodeP& n, std::set<std::string>& bound, std::set<std::string>& out) {
  if (!n) return;
  if (n->kind == Kind::Name) {
    if (!bound.count(n->name)) out.insert(n->name);
    return;
  }
  if (is_binder(n->kind)) {
    collect_free(n->kids[0], bound, out);
    collect_free(n->kids[1], bound, out);
    bool fresh = bound.insert(n->name).second;
    collect_free(n->kids[2], bound, out);
    if (fresh) bound.erase(n->name);
    return;
  }
  for (const NodeP& k : n->kids) collect_free(k, bound, out);
}

class Normalizer {
 public:
  Normalizer(const Program& program, Diagnostics& diags) : program_(program), diags_(diags) {
    globals_.reserve(program.by_name.size());
    for (const auto& [name, d] : program.by_name) globals_.emplace(name, d);
  }

  NormalModel run() {
    NormalModel model;
    model.name = stem(program_.main_file ? program_.main_file->path : std::string("model"));
    std::unordered_set<std::string> used_by_others = names_used_by_equations();
    for (const ast::Decl* d : program_.decls) {
      if (d->type == ast::Type::Numeric && d->is_parameter) {
        NormalParameter p;
        p.name = d->name;
        p.loc = d->loc;
        if (d->body) p.default_value = substitute(d->body, {});
        for (const ast::Bound& b : d->bounds) p.bounds.push_back({b.op, substitute(b.value, {})});
        model.parameters.push_back(std::move(p));
      }
    }
    for (ast::Type type : {ast::Type::Numeric, ast::Type::Process}) {
      for (const ast::Decl* d : program_.decls) {
        if (d->type != type || d->is_parameter || !d->formals.empty() || !d->body) continue;
        NormalEquation eq;
        eq.name = d->name;
        eq.type = type;
        eq.loc = d->loc;
        eq.body = global_body(*d);
        eq.top_level = in_main_file(*d) && !used_by_others.count(d->name);
        model.equations.push_back(std::move(eq));
      }
    }
    return model;
  }

 private:
  using Env = std::map<std::string, NodeP>;

  static std::string stem(const std::string& path) {
    std::size_t slash = path.find_last_of('/');
    std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    std::size_t dot = base.find_last_of('.');
    return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
  }

  bool in_main_file(const ast::Decl& d) const {
    return program_.main_file && d.loc.file == program_.main_file.get();
  }

  // Names of global equations referenced from any declaration's right-hand side.
  // Global names referred to by some declaration. A formal or a loop index that happens to
  // share a global's name is bound, not a use: `numeric h(f) = f * 2` does not use a global
  // `numeric f`, which stays a top-level result.
  std::unordered_set<std::string> names_used_by_equations() const {
    std::unordered_set<std::string> used;
    std::vector<const std::string*> bound;  // formals and the indices of the loops around
    for (const ast::Decl* d : program_.decls) {
      for (const std::string& f : d->formals) bound.push_back(&f);
      uses(d->body, bound, used);
      for (const ast::Bound& b : d->bounds) uses(b.value, bound, used);
      bound.clear();
    }
    return used;
  }
  static void uses(const NodeP& n, std::vector<const std::string*>& bound, std::unordered_set<std::string>& used) {
    if (!n) return;
    if (n->kind == Kind::Call) used.insert(n->name);
    if (n->kind == Kind::Name &&
        std::none_of(bound.begin(), bound.end(), [&](const std::string* b) { return *b == n->name; }))
      used.insert(n->name);
    bool binds = n->kind == Kind::SeqLoop || n->kind == Kind::ParLoop || n->kind == Kind::Reduce;
    for (std::size_t k = 0; k < n->kids.size(); ++k) {
      if (binds && k == 2) {  // the body: the index is bound there, not in the range
        bound.push_back(&n->name);
        uses(n->kids[k], bound, used);
        bound.pop_back();
      } else {
        uses(n->kids[k], bound, used);
      }
    }
  }

  const ast::Decl* global(const std::string& name) const {
    auto it = globals_.find(name);
    return it == globals_.end() ? nullptr : it->second;
  }

  // The normalized body of an equation without formals, computed once.
  NodeP global_body(const ast::Decl& d) {
    auto it = memo_.find(&d);
    if (it != memo_.end()) return it->second;
    NodeP body = substitute(d.body, {});
    memo_[&d] = body;
    return body;
  }

  // Every node visited counts against a budget: definitions that call each other twice
  // (f1(x) = f0(f0(x)), f2(x) = f1(f1(x)), ...) double at each level, and without it pamc
  // would build 2^40 nodes before saying anything.
  static constexpr long long kMaxExpansionNodes = 20'000'000;

  [[noreturn]] void too_large(const ast::Node* n) const {
    const ast::Node* at = outer_call_ ? outer_call_ : n;
    throw CompileError{Diagnostic{Severity::Error, DiagKind::ModelTooLarge, at->loc,
                                  "expanding the definitions " +
                                      (outer_call_ ? "called here ('" + outer_call_->name + "') " : std::string()) +
                                      "builds more than 20,000,000 expression nodes; definitions that call "
                                      "others several times grow exponentially: write the repetition as a loop",
                                  {}}};
  }

  // How many nodes substituting d's body visits, counted without building anything
  // (saturating past the budget). A call whose expansion would pass the budget is refused
  // before it starts: building 20 million nodes first took seconds, minutes under the
  // sanitizers. It never overcounts (a global equation's body, expanded once and then
  // shared, counts 1), so the running count below stays the rule and this only says it sooner.
  long long expansion_cost(const ast::Decl& d) {
    auto it = cost_.find(&d);
    if (it != cost_.end()) return it->second;
    cost_[&d] = 0;  // a recursive definition is refused by the checker; count it as nothing here
    long long c = visits(d.body, d.formals);
    cost_[&d] = c;
    return c;
  }
  long long visits(const NodeP& n, const std::vector<std::string>& formals) {
    if (!n) return 0;
    long long c = 1;
    for (const NodeP& k : n->kids) c = std::min(c + visits(k, formals), kMaxExpansionNodes + 1);
    if (n->kind == Kind::Call && std::find(formals.begin(), formals.end(), n->name) == formals.end()) {
      const ast::Decl* d = global(n->name);
      if (d && d->body && !d->formals.empty()) c = std::min(c + expansion_cost(*d), kMaxExpansionNodes + 1);
    }
    return c;
  }

  NodeP substitute(const NodeP& n, const Env& env) {
    if (++expanded_ > kMaxExpansionNodes) too_large(n.get());
    switch (n->kind) {
      case Kind::Number:
        return n;
      case Kind::Name: {
        auto it = env.find(n->name);
        if (it != env.end()) return it->second;
        const ast::Decl* d = global(n->name);
        if (!d || d->is_parameter || !d->body) return n;  // parameter (or predefined name)
        return global_body(*d);
      }
      case Kind::Call: {
        std::vector<NodeP> args;
        args.reserve(n->kids.size());
        for (const NodeP& a : n->kids) args.push_back(substitute(a, env));
        const ast::Decl* d = env.count(n->name) ? nullptr : global(n->name);
        if (!d || !d->body || d->formals.empty()) return rebuild(n, std::move(args));  // builtin or fcfs
        Env callee;
        for (std::size_t i = 0; i < d->formals.size() && i < args.size(); ++i) callee[d->formals[i]] = args[i];
        // The outermost call being expanded is where a blow-up is reported.
        if (!outer_call_) outer_call_ = n.get();
        if (expanded_ + expansion_cost(*d) > kMaxExpansionNodes) too_large(n.get());
        const ast::Node* saved = outer_call_;
        NodeP out = substitute(d->body, callee);
        if (saved == n.get()) outer_call_ = nullptr;
        return out;
      }
      default:
        break;
    }
    if (is_binder(n->kind)) {
      NodeP lb = substitute(n->kids[0], env);
      NodeP ub = substitute(n->kids[1], env);
      std::string index = fresh_index(n->name, env);
      Env inner = env;
      inner[n->name] = ast::make(Kind::Name, n->loc, {}, ast::Op::None, index);
      NodeP body = substitute(n->kids[2], inner);
      return ast::make(n->kind, n->loc, {lb, ub, body}, n->op, index);
    }
    std::vector<NodeP> kids;
    kids.reserve(n->kids.size());
    bool changed = false;
    for (const NodeP& k : n->kids) {
      kids.push_back(substitute(k, env));
      changed = changed || kids.back() != k;
    }
    return changed ? rebuild(n, std::move(kids)) : n;
  }

  static NodeP rebuild(const NodeP& n, std::vector<NodeP> kids) {
    auto copy = std::make_shared<ast::Node>(*n);
    copy->kids = std::move(kids);
    return copy;
  }

  // A loop index keeps its name unless an expression inserted in the loop's scope mentions
  // that name freely (it would be captured) or it names a parameter (whose uses inside
  // substituted equations must keep meaning the parameter).
  std::string fresh_index(const std::string& name, const Env& env) {
    std::set<std::string> taken;
    std::set<std::string> bound;
    for (const auto& [k, v] : env)
      if (k != name) collect_free(v, bound, taken);  // env[name] is shadowed by this binder
    auto clashes = [&](const std::string& s) {
      const ast::Decl* d = global(s);
      return taken.count(s) || (d && d->type == ast::Type::Numeric && d->is_parameter);
    };
    if (!clashes(name)) return name;
    for (int i = 1;; ++i) {
      std::string candidate = name + "_" + std::to_string(i);
      if (!clashes(candidate) && !global(candidate)) return candidate;
    }
  }

  const Program& program_;
  // program_.by_name hashed: every name, call and loop of every equation looks a global up,
  // and the ordered map's string compares over 10^4 declarations were a tenth of this pass.
  std::unordered_map<std::string_view, const ast::Decl*> globals_;
  [[maybe_unused]] Diagnostics& diags_;
  std::unordered_map<const ast::Decl*, NodeP> memo_;  // global_body's, per declaration
  long long expanded_ = 0;
  std::unordered_map<const ast::Decl*, long long> cost_;  // expansion_cost's, per definition
  const ast::Node* outer_call_ = nullptr;
};

}  // namespace

NormalModel normalize(const Program& program, Diagnostics& diags) {
  try {
    NormalModel model = Normalizer(program, diags).run();
    check_loop_nesting(model);
    return model;
  } catch (const CompileError& e) {
    diags.error(e.diag.loc, e.diag.kind, e.diag.message);
    return {};
  }
}

std::string print_normalized(const NormalModel& model) {
  std::string out;
  for (const NormalParameter& p : model.parameters) {
    out += "numeric parameter " + p.name;
    if (p.default_value) out += " = " + ast::print_expr(p.default_value);
    for (const ast::Bound& b : p.bounds) out += std::string(" ") + ast::op_spelling(b.op) + " " + ast::print_expr(b.value);
    out += "\n";
  }
  std::string open;  // the region block being printed (its counters are consecutive)
  for (const NormalEquation& e : model.equations) {
    if (!e.top_level) continue;
    auto [region, counter] = ast::split_counter_name(e.name);
    if (region != open) {
      if (!open.empty()) out += "}\n";
      if (!region.empty()) out += "region " + region + " {\n";
      open = region;
    }
    out += std::string(region.empty() ? "" : "  ") + ast::type_name(e.type) + " " + counter + " = " +
           ast::print_expr(e.body) + "\n";
  }
  if (!open.empty()) out += "}\n";
  return out;
}

}  // namespace pamc
