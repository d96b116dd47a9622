// The SymPy emitter: a Python module whose variables are the cost model's equations as
// SymPy expressions, over one Symbol per parameter (named as in the model), so a user can
// differentiate, solve or plot the formula. Numbers stay exact (Integer, Rational), as in
// pamc. What SymPy has no name for is a small helper in the module: a reduction left open
// (pamc_sum is a Sum over a fresh index; a max/min over a range becomes a number once its
// bounds are), a resource vector (weights times unitvec(position); pamc_vmax takes its
// largest element once every position is a number), a comparison (Piecewise 1 or 0).
// evaluate(name, **values) gives the model's value as `pamc eval` does: the closed form
// where its assumptions hold, else the time-domain form.
#include <algorithm>
#include <sstream>

#include "compiler/emit/code_printer.h"
#include "compiler/emit/emit.h"
#include "compiler/symbolic/symbolic.h"

namespace pamc::emit {
namespace {

const std::set<std::string>& python_reserved() {
  static const std::set<std::string> words{
      "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
      "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
      "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
      // what the module itself names, and builtins it must not shadow
      "sp", "unitvec", "parameters", "defaults", "equations", "assumptions", "time_domain", "evaluate",
      "int", "float", "str", "range", "len", "max", "min", "sum", "abs", "print", "dict", "list", "bool",
      "all", "any", "isinstance", "ValueError", "KeyError"};
  return words;
}

bool helper_name(const std::string& n) { return n.rfind("pamc_", 0) == 0; }

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

class SympyPrinter : public CodePrinter {
 public:
  using CodePrinter::CodePrinter;

 protected:
  std::string number(const GiNaC::numeric& x) override {
    auto text = [](const GiNaC::numeric& n) {
      std::ostringstream s;
      s << n;
      return s.str();
    };
    if (x.is_integer()) return "sp.Integer(" + text(x) + ")";
    if (x.is_rational()) return "sp.Rational(" + text(x.numer()) + ", " + text(x.denom()) + ")";
    return "sp.Float(\"" + shortest(x.to_double()) + "\")";
  }
  // SymPy's own product and quotient: the model's zero-factor rule is for numbers, and a
  // SymPy user works with the formula.
  std::string product(const std::vector<std::string>& fs) override {
    std::string out;
    for (const std::string& f : fs) out += (out.empty() ? "(" : ")*(") + f;
    return out + ")";
  }
  std::string quotient(const std::string& n, const std::string& d) override { return "(" + n + ")/(" + d + ")"; }
  std::string power(const std::string& b, const std::string& e) override { return "(" + b + ")**(" + e + ")"; }
  std::string sqrt(const std::string& x) override { return "sp.sqrt(" + x + ")"; }
  std::string call(const std::string& fn, const std::vector<std::string>& a) override {
    if (fn == "floor") return "sp.floor(" + a[0] + ")";
    if (fn == "ceil") return "sp.ceiling(" + a[0] + ")";
    if (fn == "abs") return "sp.Abs(" + a[0] + ")";
    if (fn == "log2") return "sp.log(" + a[0] + ", 2)";
    if (fn == "gcd") return "sp.gcd(" + a[0] + ", " + a[1] + ")";
    return "sp." + fn + "(" + a[0] + ")";  // log, exp
  }
  // Pamela's mod and div round down, as SymPy's Mod and floor do, for negative operands too.
  std::string mod(const std::string& a, const std::string& b) override { return "sp.Mod(" + a + ", " + b + ")"; }
  std::string idiv(const std::string& a, const std::string& b) override { return "sp.floor((" + a + ")/(" + b + "))"; }
  std::string compare(const std::string& op, const std::string& a, const std::string& b) override {
    const char* rel = op == "==" ? "sp.Eq" : op == "!=" ? "sp.Ne" : op == "<" ? "sp.Lt" : "sp.Le";
    return "sp.Piecewise((1, " + std::string(rel) + "(" + a + ", " + b + ")), (0, True))";
  }
  std::string extremum(bool is_max, const std::vector<std::string>& args) override {
    std::string out = is_max ? "sp.Max(" : "sp.Min(";
    for (std::size_t i = 0; i < args.size(); ++i) out += (i ? ", " : "") + args[i];
    return out + ")";
  }
  std::string reduction(int kind, bool empty_is_zero, const std::string& i, const std::string& lb,
                        const std::string& ub, const std::string& body) override {
    const std::string f = "lambda " + i + ": " + body;
    if (kind == 0) return "pamc_sum(" + f + ", " + lb + ", " + ub + ", " + quoted(i) + ")";
    return std::string(kind == 1 ? "pamc_max_over(" : "pamc_min_over(") + f + ", " + lb + ", " + ub + ", " +
           quoted(i) + ", " + (empty_is_zero ? "True" : "False") + ")";
  }
  // A resource vector as an expression: weight * unitvec(position) terms.
  std::string vector_add(const std::string& pos, const std::string& value) override {
    return " + (" + value + ")*unitvec(" + pos + ")";
  }
  std::string vector_loop(const std::string& i, const std::string& lb, const std::string& ub,
                          const std::string& body) override {
    return " + pamc_sum(lambda " + i + ": 0" + body + ", " + lb + ", " + ub + ", " + quoted(i) + ")";
  }
  std::string vector_max(const std::string& statements, const std::vector<std::string>&) override {
    return "pamc_vmax(0" + statements + ")";
  }
};

// The helpers, in Python; the semantics are those of pamc's exact evaluator.
const char* kHelpers = R"PY(unitvec = sp.Function("unitvec")


def pamc_sum(body, lb, ub, index):
    """sum (index = lb, ub) body, unevaluated until .doit()."""
    k = sp.Dummy(index, integer=True)
    return sp.Sum(body(k), (k, lb, ub))


class pamc_extremum_over(sp.Function):
    """max or min (k = lb, ub) body: a number once lb and ub are. An empty range gives 0
    for the max over a par's branches, and no value otherwise."""

    @classmethod
    def eval(cls, is_max, body, k, lb, ub, empty_is_zero):
        if not (lb.is_number and ub.is_number):
            return None
        if lb != sp.floor(lb) or ub != sp.floor(ub):
            return sp.nan
        if ub < lb:
            return sp.Integer(0) if empty_is_zero else sp.nan
        values = [body.subs(k, j).doit() for j in range(int(lb), int(ub) + 1)]
        return sp.Max(*values) if is_max else sp.Min(*values)


def pamc_max_over(body, lb, ub, index, empty_is_zero):
    k = sp.Dummy(index, integer=True)
    return pamc_extremum_over(sp.true, body(k), k, lb, ub, sp.true if empty_is_zero else sp.false)


def pamc_min_over(body, lb, ub, index, empty_is_zero):
    k = sp.Dummy(index, integer=True)
    return pamc_extremum_over(sp.false, body(k), k, lb, ub, sp.true if empty_is_zero else sp.false)


class pamc_vmax(sp.Function):
    """The largest element of a resource vector (weight * unitvec(position) terms): over
    positions 0 .. the last nonzero one, so a position not given counts 0; the zero vector
    gives 0. A number once every position is."""

    @classmethod
    def eval(cls, v):
        if v.free_symbols:
            return None
        acc = {}
        for term in sp.Add.make_args(sp.expand(pamc_doit(v))):
            position, weight = sp.Integer(0), sp.Integer(1)
            for f in sp.Mul.make_args(term):
                if getattr(f, "func", None) == unitvec:
                    position = f.args[0]
                else:
                    weight *= f
            if weight == 0:
                continue
            if not position.is_integer or position < 0:
                return sp.nan
            acc[int(position)] = acc.get(int(position), 0) + weight
        acc = {k: w for k, w in acc.items() if w != 0}
        if not acc:
            return sp.Integer(0)
        values = list(acc.values())
        if len(acc) < max(acc) + 1:
            values.append(sp.Integer(0))
        return sp.Max(*values)


def pamc_doit(e):
    """e with every sum over numbers added up term by term (SymPy's own summation of a
    Piecewise body, such as (2^d + 1 <= P) over d, can be wrong), then evaluated."""
    def explicit(s):
        k, a, b = s.limits[0]
        a, b = sp.simplify(a), sp.simplify(b)
        if not (a.is_number and b.is_number) or abs(b - a) > 10**6:
            return s
        if a != sp.floor(a) or b != sp.floor(b):
            return sp.nan
        if b < a:
            return sp.Integer(0)
        return sp.Add(*[s.function.subs(k, j) for j in range(int(a), int(b) + 1)])
    for _ in range(64):  # nested sums: an outer one's terms hold inner sums over numbers
        f = e.replace(lambda x: isinstance(x, sp.Sum), explicit)
        if f == e:
            break
        e = f
    return e.doit()


def pamc_holds(relation, point):
    """Whether an assumption (Ge(x, 0), or Eq(x, floor(x)): x is an integer) holds at the
    point; log(8)/log(2) is 3, which SymPy's relations leave undecided until simplified."""
    r = relation.subs(point).doit()
    if r in (sp.true, sp.false):
        return bool(r)
    d = sp.simplify(r.lhs - r.rhs)
    if isinstance(r, sp.Eq):
        return d == 0 or bool(abs(sp.N(d, 40)) < sp.Float("1e-30"))
    return bool(sp.N(d, 40) >= 0)


def evaluate(name, **values):
    """Equation `name` at these parameter values (defaults fill in the rest), as pamc eval
    gives it: the closed form where every assumption holds, else the time-domain form.
    Give values as int, str ("0.1") or SymPy numbers to keep them exact."""
    point = {}
    for p in parameters:
        if p.name in values:
            v = values[p.name]
            point[p] = sp.Rational(repr(v)) if isinstance(v, float) else sp.sympify(v)
        elif p in defaults:
            point[p] = defaults[p].subs(point)
        else:
            raise ValueError("no value for the parameter " + p.name)
    holds = all(pamc_holds(a, point) for a in assumptions)
    return pamc_doit((equations if holds else time_domain)[name].subs(point))
)PY";

}  // namespace

std::string emit_sympy(const CostModel& model, bool all) {
  NameTable names(python_reserved(), helper_name);
  auto equations = emitted_equations(model, all);
  std::vector<std::string> eq_names, param_names;
  for (const CostEquation* e : equations) eq_names.push_back(names.make(e->name));
  SympyPrinter printer(names);
  for (const CostParameter& p : model.parameters) {
    param_names.push_back(names.make(p.name));
    printer.bind(p.symbol, param_names.back());
  }
  std::ostringstream out;
  out << "# " << model.name << ".pam: the cost model as SymPy expressions, generated by pamc.\n"
      << "#   import " << names.make(model.name) << " as m; m." << (eq_names.empty() ? "equations" : eq_names[0])
      << "; m.evaluate(" << (eq_names.empty() ? "\"...\"" : quoted(equations[0]->name)) << ", ...)\n";
  if (!model.assumptions.from_model.empty()) {
    out << "# from the model:";
    for (std::size_t i = 0; i < model.assumptions.from_model.size(); ++i)
      out << (i ? ", " : " ") << model.assumptions.from_model[i];
    out << "\n";
  }
  for (const std::string& a : model.assumptions.items) out << "# assumes " << a << "\n";
  out << "import sympy as sp\n\n" << kHelpers << "\n\n";
  for (std::size_t i = 0; i < param_names.size(); ++i)
    out << param_names[i] << " = sp.Symbol(" << quoted(model.parameters[i].name) << ")\n";
  out << "parameters = [";
  for (std::size_t i = 0; i < param_names.size(); ++i) out << (i ? ", " : "") << param_names[i];
  out << "]\ndefaults = {";
  bool first = true;
  for (std::size_t i = 0; i < param_names.size(); ++i)
    if (model.parameters[i].default_value) {
      out << (first ? "" : ", ") << param_names[i] << ": " << printer.print(*model.parameters[i].default_value);
      first = false;
    }
  out << "}\n\n";
  for (std::size_t k = 0; k < equations.size(); ++k) out << eq_names[k] << " = " << printer.print(equations[k]->value) << "\n";
  out << "\nequations = {";
  for (std::size_t k = 0; k < equations.size(); ++k) out << (k ? ", " : "") << quoted(equations[k]->name) << ": " << eq_names[k];
  out << "}\n\n# The closed forms equal the model where these hold; elsewhere the time-domain forms do.\nassumptions = [";
  // Each kind in the order of its text: the assumptions' own order follows GiNaC's.
  std::vector<std::string> nonneg, integer;
  for (const GiNaC::ex& c : model.assumptions.nonneg) nonneg.push_back("sp.Ge(" + printer.print(c) + ", 0)");
  for (const GiNaC::ex& c : model.assumptions.integer) {
    std::string x = printer.print(c);
    integer.push_back("sp.Eq(" + x + ", sp.floor(" + x + "))");
  }
  std::sort(nonneg.begin(), nonneg.end());
  std::sort(integer.begin(), integer.end());
  nonneg.insert(nonneg.end(), integer.begin(), integer.end());
  for (std::size_t i = 0; i < nonneg.size(); ++i) out << (i ? ", " : "") << nonneg[i];
  out << "]\ntime_domain = {";
  for (std::size_t k = 0; k < equations.size(); ++k)
    out << (k ? ",\n               " : "") << quoted(equations[k]->name) << ": " << printer.print(equations[k]->time_value);
  out << "}\n";
  return out.str();
}

}  // namespace pamc::emit
