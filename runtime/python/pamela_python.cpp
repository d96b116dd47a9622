// The Python module `pamela`: the embedding library (runtime/include/pamela/pamela.h) for
// Python, with NumPy-vectorized evaluation (docs/python.md).
//
//   import pamela, numpy as np
//   m = pamela.Model("samples/mrm.pam")
//   m(P=np.arange(1, 1025), N=1e6)        # an array of 1024 T_main values
//
// A call takes each parameter as a number or an array (positional in declaration order,
// or by name); the arrays are broadcast against each other with NumPy's rules, laid out
// as one row-major table and evaluated by CostFunction::evaluate_many with the GIL
// released, so a million points cost what they cost in C++ plus one copy of the inputs.
#include <pamela/pamela.h>
#include <pybind11/numpy.h>
#include <pybind11/eval.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace pybind11::literals;

namespace {

// The arguments of one call, as they bind to the model's parameters: one object (number
// or array) per parameter, or none where the caller left a parameter to its default.
std::vector<py::object> bind_arguments(const std::string& who, const std::vector<std::string>& names,
                                       const py::args& args, const py::kwargs& kwargs) {
  if (args.size() > names.size())
    throw py::type_error(who + " takes at most " + std::to_string(names.size()) + " arguments (" +
                         std::to_string(args.size()) + " given)");
  std::vector<py::object> given(names.size());
  for (std::size_t i = 0; i < args.size(); ++i) given[i] = py::reinterpret_borrow<py::object>(args[i]);
  for (auto [key, value] : kwargs) {
    std::string k = py::cast<std::string>(key);
    auto it = std::find(names.begin(), names.end(), k);
    if (it == names.end()) throw py::type_error(who + " has no parameter '" + k + "'");
    auto i = static_cast<std::size_t>(it - names.begin());
    if (given[i]) throw py::type_error(who + " got two values for the parameter '" + k + "'");
    given[i] = py::reinterpret_borrow<py::object>(value);
  }
  return given;
}

// Evaluates `f` at the bound arguments: a float when every argument is a number, else an
// array of the arguments' broadcast shape.
py::object call(const pamela::CostFunction& f, const std::vector<py::object>& given) {
  const std::vector<std::string>& names = f.parameters();
  // Plain numbers, as a loop over single points passes them: no NumPy on this path.
  std::vector<double> numbers;
  std::map<std::string, double> by_name;
  bool all_plain = true;
  std::size_t end = 0;  // one past the last parameter given
  for (std::size_t i = 0; i < given.size() && all_plain; ++i) {
    if (!given[i]) continue;
    end = i + 1;
    PyObject* o = given[i].ptr();
    all_plain = PyFloat_Check(o) || PyLong_Check(o);
    if (all_plain) {
      numbers.push_back(PyFloat_AsDouble(o));
      if (PyErr_Occurred()) throw py::error_already_set();  // an int too large for a double
      by_name[names[i]] = numbers.back();
    }
  }
  if (all_plain) {
    if (end == numbers.size())  // the first parameters: the fast path
      return py::float_(f.evaluate(numbers.data(), numbers.size()));
    return py::float_(f(by_name));
  }
  py::module_ np = py::module_::import("numpy");
  std::vector<std::size_t> columns;  // the parameters given, in declaration order
  std::vector<py::array> arrays;
  py::list shapes;
  bool all_numbers = true;
  for (std::size_t i = 0; i < given.size(); ++i) {
    if (!given[i]) continue;
    py::array a = np.attr("asarray")(given[i], "dtype"_a = "float64");  // no copy of a float64 array
    all_numbers = all_numbers && a.ndim() == 0;
    columns.push_back(i);
    arrays.push_back(a);
    shapes.append(a.attr("shape"));
  }
  py::tuple shape = np.attr("broadcast_shapes")(*shapes);
  std::size_t rows = 1;
  for (auto d : shape) rows *= py::cast<std::size_t>(d);
  const std::size_t n = columns.size();

  // Each argument as a flat float64 view of the broadcast shape (a zero stride where it
  // repeats; integers are converted once by NumPy).
  std::vector<py::array> flats;
  std::vector<const char*> bases;
  std::vector<py::ssize_t> strides;
  for (std::size_t c = 0; c < n; ++c) {
    py::array flat = np.attr("broadcast_to")(arrays[c], shape).attr("reshape")(-1);
    bases.push_back(static_cast<const char*>(flat.data()));
    strides.push_back(flat.strides(0));
    flats.push_back(std::move(flat));
  }

  py::array_t<double> out(static_cast<py::ssize_t>(rows));
  double* result = out.mutable_data();
  // The parameters given are the first n: the fast path, where missing trailing ones take
  // their defaults. Otherwise (a parameter left to its default before one given) by name.
  const bool prefix = n == 0 || columns.back() == n - 1;
  {
    py::gil_scoped_release unlocked;
    // The library takes a row-major table: built a block of rows at a time, so it stays in
    // cache between being written and read.
    constexpr std::size_t kBlock = 1024;
    std::vector<double> table(std::min(rows, kBlock) * n);
    std::map<std::string, double> point;
    for (std::size_t first = 0; first < rows; first += kBlock) {
      const std::size_t count = std::min(kBlock, rows - first);
      for (std::size_t c = 0; c < n; ++c) {
        const char* p = bases[c] + static_cast<py::ssize_t>(first) * strides[c];
        for (std::size_t r = 0; r < count; ++r, p += strides[c])
          table[r * n + c] = *reinterpret_cast<const double*>(p);
      }
      if (prefix) {
        f.evaluate_many(table.data(), count, n, result + first);
      } else {
        for (std::size_t r = 0; r < count; ++r) {
          for (std::size_t c = 0; c < n; ++c) point[names[columns[c]]] = table[r * n + c];
          result[first + r] = f(point);
        }
      }
    }
  }
  if (all_numbers) return py::float_(result[0]);
  return out.attr("reshape")(shape);
}

// The equation `pamela.Model(...)(...)` evaluates: T_main when the model has a process
// main, else its first top-level equation (what `pamc eval` prints first).
std::string default_equation(const pamela::Model& m) {
  std::vector<std::string> top = m.top_level_equations();
  if (std::find(top.begin(), top.end(), "T_main") != top.end()) return "T_main";
  if (top.empty()) throw py::value_error("the model " + m.name() + " has no scalar top-level equation");
  return top.front();
}

pamela::Options make_options(const std::vector<std::string>& include_dirs, const std::vector<std::string>& machines,
                             bool simplify) {
  pamela::Options o;
  o.include_dirs = include_dirs;
  o.machines = machines;
  o.simplify = simplify;
  return o;
}

std::string fspath(const py::object& path) { return py::cast<std::string>(py::module_::import("os").attr("fspath")(path)); }

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

PYBIND11_MODULE(pamela, m) {
  m.doc() = "Pamela cost models compiled by pamc, evaluated at C++ speed (docs/python.md)";
  m.attr("__version__") = PAMC_VERSION;

  py::class_<pamela::Diagnostic>(m, "Diagnostic", "One diagnostic of a model that did not compile")
      .def_readonly("file", &pamela::Diagnostic::file)
      .def_readonly("line", &pamela::Diagnostic::line)
      .def_readonly("column", &pamela::Diagnostic::column)
      .def_readonly("kind", &pamela::Diagnostic::kind)
      .def_readonly("message", &pamela::Diagnostic::message)
      .def_readonly("rendered", &pamela::Diagnostic::rendered)
      .def("__repr__", [](const pamela::Diagnostic& d) {
        return d.file + ":" + std::to_string(d.line) + ":" + std::to_string(d.column) + ": [" + d.kind + "] " +
               d.message;
      });

  // pamela.Error(Exception): str() is every diagnostic as pamc prints it; .diagnostics
  // the list of them. The type is kept for the translator and never freed (a module's
  // exception type lives as long as the interpreter).
  static py::handle error_type = py::exception<pamela::Error>(m, "Error").release();
  // pamela.WorkLimit(RuntimeError): a point whose unsimplified loops would pass 10^9 steps.
  static py::handle work_limit_type = py::exception<pamela::WorkLimit>(m, "WorkLimit", PyExc_RuntimeError).release();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const pamela::Error& e) {
      py::object err = error_type(e.what());
      err.attr("diagnostics") = py::cast(e.diagnostics());
      PyErr_SetObject(error_type.ptr(), err.ptr());
    } catch (const pamela::WorkLimit& e) {
      PyErr_SetString(work_limit_type.ptr(), e.what());
    }
  });

  py::class_<pamela::Parameter>(m, "Parameter", "A declared model parameter")
      .def_readonly("name", &pamela::Parameter::name)
      .def_readonly("default", &pamela::Parameter::default_text, "the declared default, in Pamela syntax, or None")
      .def_readonly("bounds", &pamela::Parameter::bounds)
      .def("__repr__", [](const pamela::Parameter& p) {
        std::string s = "<pamela.Parameter " + p.name;
        if (p.default_text) s += " = " + *p.default_text;
        if (!p.bounds.empty()) s += " (" + join(p.bounds) + ")";
        return s + ">";
      });

  py::class_<pamela::CostFunction>(m, "CostFunction",
                                   "One cost equation, compiled: call it with numbers or arrays")
      .def_property_readonly("name", &pamela::CostFunction::name)
      .def_property_readonly("parameters", &pamela::CostFunction::parameters)
      .def_property_readonly("formula", &pamela::CostFunction::formula)
      .def_property_readonly("instructions", &pamela::CostFunction::instructions)
      .def("__call__",
           [](const pamela::CostFunction& f, const py::args& args, const py::kwargs& kwargs) {
             return call(f, bind_arguments(f.name(), f.parameters(), args, kwargs));
           })
      .def("__repr__", [](const pamela::CostFunction& f) {
        return "<pamela.CostFunction " + f.name() + " = " + f.formula() + ">";
      });

  py::class_<pamela::Model>(m, "Model", "A Pamela model, compiled to closed-form cost functions")
      .def(py::init([](const py::object& path, const std::vector<std::string>& include_dirs,
                       const std::vector<std::string>& machines, bool simplify) {
             return pamela::Model::from_file(fspath(path), make_options(include_dirs, machines, simplify));
           }),
           "path"_a, py::kw_only(), "include_dirs"_a = std::vector<std::string>{},
           "machines"_a = std::vector<std::string>{}, "simplify"_a = true)
      .def_static(
          "from_text",
          [](const std::string& text, const std::string& name, const std::vector<std::string>& include_dirs,
             const std::vector<std::string>& machines, bool simplify) {
            return pamela::Model::from_text(text, name, make_options(include_dirs, machines, simplify));
          },
          "text"_a, "name"_a = "model", py::kw_only(), "include_dirs"_a = std::vector<std::string>{},
          "machines"_a = std::vector<std::string>{}, "simplify"_a = true)
      .def_property_readonly("name", &pamela::Model::name)
      .def_property_readonly("parameters", &pamela::Model::parameters)
      .def_property_readonly("parameter_info", &pamela::Model::parameter_info)
      .def_property_readonly("equations", &pamela::Model::equations)
      .def_property_readonly("top_level_equations", &pamela::Model::top_level_equations)
      .def_property_readonly("assumptions", &pamela::Model::assumptions)
      .def("latex", &pamela::Model::latex,
           "The top-level equations as amsmath (align*), as `pamc compile --emit latex` prints them")
      .def("_repr_latex_",
           [](const pamela::Model& model) {
             // A notebook shows the equations; the comment lines (parameters, assumptions)
             // stay out of the rendered math.
             std::istringstream in(model.latex());
             std::string out, line;
             while (std::getline(in, line))
               if (line.rfind("%", 0) != 0) out += line + "\n";
             return out;
           })
      .def(
          "sympy",
          [](const pamela::Model& model) {
            // The module `pamc compile --emit sympy` writes, run in a fresh module object.
            py::object module = py::module_::import("types").attr("ModuleType")(model.name());
            py::dict ns = module.attr("__dict__");
            py::exec(model.sympy(), ns);
            return module;
          },
          "The cost model as SymPy expressions: a module with one attribute per top-level equation, "
          "parameters, defaults, assumptions, time_domain and evaluate(name, **values)")
      .def("function", &pamela::Model::function, "name"_a)
      .def("__call__",
           [](const pamela::Model& model, const py::args& args, const py::kwargs& kwargs) {
             pamela::CostFunction f = model.function(default_equation(model));
             return call(f, bind_arguments(model.name(), model.parameters(), args, kwargs));
           })
      .def("evaluate",
           [](const pamela::Model& model, const py::args& args, const py::kwargs& kwargs) {
             std::vector<py::object> given = bind_arguments(model.name(), model.parameters(), args, kwargs);
             py::dict out;
             for (const std::string& name : model.top_level_equations()) out[py::str(name)] = call(model.function(name), given);
             return out;
           })
      .def("violated_assumptions",
           [](const pamela::Model& model, const py::args& args, const py::kwargs& kwargs) {
             std::vector<py::object> given = bind_arguments(model.name(), model.parameters(), args, kwargs);
             // Every parameter, but those with a default at the end of the list (the library
             // fills them in, as a call does).
             std::size_t end = given.size();
             while (end > 0 && !given[end - 1] && model.parameter_info()[end - 1].default_text) --end;
             std::vector<double> point;
             for (std::size_t i = 0; i < end; ++i) {
               if (!given[i])
                 throw py::type_error("violated_assumptions needs every parameter without a default: '" +
                                      model.parameters()[i] + "' is missing");
               point.push_back(py::cast<double>(given[i]));
             }
             return model.violated_assumptions(point);
           })
      .def("__repr__", [](const pamela::Model& model) {
        return "<pamela.Model " + model.name() + "(" + join(model.parameters()) + ")>";
      });
}
