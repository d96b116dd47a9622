// pamc fit (docs/cli.md): options in, fit_model, the report out.
#include <map>
#include <string>
#include <vector>
#include "compiler/check/check.h"
#include "compiler/driver/subcommand.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "compiler/driver/driver_util.h"
#include "compiler/support/json.h"
#include "compiler/evaluate/evaluate_model.h"
#include "compiler/analysis/fit.h"
#include "compiler/passes/pipeline.h"

namespace pamc {
namespace {

struct FitCommand {
  std::string file;
  LoadOptions load;
  std::map<std::string, std::string> bindings;  // -D: fixed for every row
  std::vector<std::string> targets;             // at most one
  std::string data;                             // --data CSV
  std::vector<std::string> fit;                 // --fit names
  std::map<std::string, std::string> start;     // --start NAME=VALUE
  std::string measured;                         // --measured COLUMN
  bool relative = false;
  int max_iterations = 200;
  bool json = false;
  std::string output;  // -o: the cost model with the fitted values as defaults
};

}  // namespace
namespace {

// The shortest text that reads back as v when that has at most 15 significant digits,
// else 15 digits: hides binary rounding (an exact fit prints 2.5, not 2.4999999999999996)
// and keeps every digit a double carries reliably. Whole numbers print in full.
std::string num(double v) {
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    auto r = std::to_chars(buf, buf + sizeof buf, static_cast<long long>(v));
    return std::string(buf, r.ptr);
  }
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  int digits = 0;
  for (char* q = buf; q < r.ptr && *q != 'e'; ++q) digits += (*q >= '0' && *q <= '9');
  if (digits > 15) r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 15);
  return std::string(buf, r.ptr);
}

std::string short_num(double v, int digits = 6) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string percent(double v) { return short_num(100 * v, 3) + "%"; }

std::string format_json(const FitResult& r, const std::string& data_path) {
  // Numbers as num() prints them: at most 15 significant digits.
  auto number = [](double v) { return json_number(v, 15); };
  auto optional = [](const std::optional<double>& v) { return json_number(v, 15); };
  Json doc = {{"target", r.target}, {"equation", r.equation}, {"data", data_path}, {"measured", r.measured},
              {"method", r.linear ? "linear" : "levenberg-marquardt"}, {"residuals", r.relative ? "relative" : "absolute"}};
  if (!r.linear) {
    doc["iterations"] = r.iterations;
    doc["convergence"] = r.convergence;
  }
  Json parameters = Json::object();
  for (const FitParameter& p : r.parameters) {
    Json q = {{"value", number(p.value)}, {"std_error", optional(p.std_error)}, {"at_bound", p.at_bound}};
    if (!r.linear) q["start"] = number(p.start);
    parameters[p.name] = q;
  }
  doc["parameters"] = parameters;
  doc["rows"] = r.rows.size();
  doc["rss"] = number(r.rss);
  doc["rms"] = number(r.rms);
  doc["rms_relative_error"] = optional(r.rms_relative_error);
  doc["max_relative_error"] = optional(r.max_relative_error);
  doc["max_relative_error_line"] = r.max_relative_error_line ? Json(*r.max_relative_error_line) : Json(nullptr);
  doc["r2"] = optional(r.r2);
  Json rows = Json::array();
  for (const FitRow& row : r.rows) {
    Json inputs = Json::object();
    for (const auto& [name, value] : row.inputs) inputs[name] = number(value);
    rows.push_back({{"line", row.line}, {"inputs", inputs}, {"measured", number(row.measured)},
                    {"predicted", number(row.predicted)}, {"relative_error", optional(row.relative_error)}});
  }
  doc["data_rows"] = rows;
  doc["notes"] = r.notes;
  doc["warnings"] = r.warnings;
  return json_text(doc) + "\n";
}

// Columns padded to their widest cell.
std::string table(const std::vector<std::vector<std::string>>& cells, const std::string& indent) {
  std::vector<std::size_t> width;
  for (const auto& row : cells)
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (width.size() <= c) width.push_back(0);
      width[c] = std::max(width[c], row[c].size());
    }
  std::string out;
  for (const auto& row : cells) {
    std::string line = indent;
    for (std::size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(width[c] - row[c].size() + 2, ' ');
    }
    out += line + "\n";
  }
  return out;
}

std::string format_text(const FitResult& r, const std::string& data_path) {
  std::ostringstream o;
  o << r.target << " = " << r.equation << "\n";
  o << "fitted to " << data_path << " (measured: column '" << r.measured << "', " << r.rows.size()
    << (r.rows.size() == 1 ? " row" : " rows") << ") by " << r.method;
  if (!r.linear) o << ", " << r.iterations << (r.iterations == 1 ? " iteration" : " iterations");
  if (r.relative) o << ", minimising relative residuals";
  o << "\n\n";
  std::vector<std::vector<std::string>> params{{"parameter", "value", "std. error"}};
  if (!r.linear) params[0].push_back("start");
  for (const FitParameter& p : r.parameters) {
    params.push_back({p.name, num(p.value), p.at_bound ? "- (at its bound)" : p.std_error ? short_num(*p.std_error, 3) : "-"});
    if (!r.linear) params.back().push_back(num(p.start));
  }
  o << table(params, "  ") << "\n";
  o << "  residual sum of squares  " << short_num(r.rss) << "\n";
  o << "  RMS residual             " << short_num(r.rms) << "\n";
  if (r.rms_relative_error) o << "  RMS relative error       " << percent(*r.rms_relative_error) << "\n";
  if (r.max_relative_error)
    o << "  max relative error       " << percent(*r.max_relative_error) << " (line " << *r.max_relative_error_line
      << ")\n";
  o << "  R^2 (" << (r.relative ? "relative" : "absolute") << " residuals) "
    << (r.r2 ? short_num(*r.r2, 8) : std::string("- (the measurements are all equal)")) << "\n\n";
  std::vector<std::vector<std::string>> rows{{"line"}};
  if (!r.rows.empty())
    for (const auto& [name, v] : r.rows.front().inputs) rows[0].push_back(name);
  for (const char* h : {"measured", "predicted", "rel. error"}) rows[0].push_back(h);
  for (const FitRow& row : r.rows) {
    std::vector<std::string> cells{std::to_string(row.line)};
    for (const auto& [name, v] : row.inputs) cells.push_back(num(v));
    cells.push_back(num(row.measured));
    cells.push_back(short_num(row.predicted, 8));
    cells.push_back(row.relative_error ? percent(*row.relative_error) : "-");
    rows.push_back(std::move(cells));
  }
  o << table(rows, "  ");
  return o.str();
}

}  // namespace

int cmd_fit(const FitCommand& c) {
  FitRequest req;
  if (!parse_bindings(c.bindings, req.bindings)) return kUsageError;
  for (const auto& [name, text] : c.start) {
    GiNaC::numeric v;
    if (!parse_binding_value(text, v)) {
      return report(usage_error("fit: --start " + name + "=" + text + ": not a number"));
    }
    req.start[name] = v;
  }
  req.unknowns = c.fit;
  if (!c.targets.empty()) req.target = c.targets.front();
  req.measured = c.measured;
  req.relative = c.relative;
  req.max_iterations = c.max_iterations;

  Diagnostics diags;
  auto comp = compile_file(c.file, c.load, Stage::Simplified, diags);
  if (!comp) return report(diags);
  report(diags);  // the warnings of a model that compiled
  std::string error;
  SourceFileP csv = read_source_file(c.data, error);  // outlives every diagnostic pointing into it
  if (!csv) {
    return report(file_error(c.data, DiagKind::IOError, "cannot read the data file: " + error));
  }
  FitResult result;
  try {
    FitData data = parse_fit_data(csv);
    result = fit_model(comp->model, data, req);
  } catch (const CompileError& e) {
    return report(e);
  }
  for (const std::string& n : result.notes) report_note(c.data, n);
  for (const std::string& w : result.warnings)
    render_diagnostic(std::cerr, Diagnostic{Severity::Warning, DiagKind::PoorFit, Loc{}, w, c.data});
  std::cout << (c.json ? format_json(result, c.data) : format_text(result, c.data));
  if (!c.output.empty()) {
    // The cost model with each fitted constant as its parameter's default.
    CostModel model = comp->model;
    for (const FitParameter& p : result.parameters)
      for (CostParameter& q : model.parameters)
        if (q.name == p.name) {
          GiNaC::numeric v;
          if (parse_binding_value(num(p.value), v)) q.default_value = GiNaC::ex(v);
        }
    std::string text = "% " + c.file + " calibrated by pamc fit on " + c.data + "\n" + print_cost_model(model, false);
    if (!write_file_atomically(c.output, text)) {
      return report(file_error(c.output, DiagKind::IOError, "cannot write the output file"));
    }
  }
  return kOk;
}

namespace {

void options(po::options_description& d) {
  add_binding_option(d);
  d.add_options()
      ("data", po::value<std::string>(), "CSV of measurements: a header of column names, one row per measurement")
      ("fit", po::value<std::vector<std::string>>()->composing(), "NAME[,NAME]...: the parameters to fit (repeatable)")
      ("target", po::value<std::vector<std::string>>()->composing(), "the equation measured: T_main (default), or a process L meaning T_L")
      ("measured", po::value<std::string>(), "the CSV column of measured values (default: the column named after the target, 'measured' or 'time')")
      ("relative", "minimise relative residuals (predicted - measured) / measured instead of absolute ones")
      ("start", po::value<std::vector<std::string>>()->composing(), "NAME=VALUE: where Levenberg-Marquardt starts for a fitted NAME (default: its declared default, else 1)")
      ("max-iterations", po::value<int>()->default_value(200), "Levenberg-Marquardt iteration limit")
      ("json", "print JSON")
      ("output,o", po::value<std::string>(), "write the cost model with the fitted values as parameter defaults to PATH");
}

// Every check of --fit is here, once: names split at commas, none empty, none twice, none
// also fixed with -D.
int run(const CommandLine& line) {
  FitCommand c;
  read_model_options(c, line);
  if (c.targets.size() > 1) throw usage_error("fit: give at most one --target");
  if (!line.flag("data")) throw usage_error("fit: no --data CSV given");
  c.data = line.text("data");
  for (const std::string& list : line.strings("fit")) {
    std::stringstream in(list);
    for (std::string name; std::getline(in, name, ',');) {
      if (name.empty()) throw usage_error("fit: --fit " + list + ": empty name");
      c.fit.push_back(name);
    }
    if (!list.empty() && list.back() == ',') throw usage_error("fit: --fit " + list + ": empty name");
  }
  if (c.fit.empty()) throw usage_error("fit: no --fit NAME given (the parameters to calibrate)");
  for (std::size_t i = 0; i < c.fit.size(); ++i) {
    if (std::find(c.fit.begin(), c.fit.begin() + static_cast<long>(i), c.fit[i]) != c.fit.begin() + static_cast<long>(i))
      throw usage_error("fit: --fit " + c.fit[i] + " is given twice");
    if (c.bindings.count(c.fit[i])) throw usage_error("fit: " + c.fit[i] + " is both fitted (--fit) and fixed (-D)");
  }
  for (const std::string& s : line.strings("start")) {
    auto [name, value] = parse_assignment(s, "fit: --start");
    c.start[name] = value;
  }
  c.measured = line.text("measured");
  c.relative = line.flag("relative");
  c.max_iterations = line.vm["max-iterations"].as<int>();
  if (c.max_iterations < 1) throw usage_error("fit: --max-iterations must be at least 1");
  c.json = line.flag("json");
  c.output = line.text("output");
  return cmd_fit(c);
}

}  // namespace

extern const Subcommand fit_command{
    "fit", "least-squares calibration of unknown constants",
    "FILE --data CSV --fit NAME[,NAME]... [-D NAME=VALUE]... [--target NAME] [--measured COLUMN] "
    "[--relative] [--start NAME=VALUE]... [--json] [-o PATH]",
    options, run};

}  // namespace pamc
