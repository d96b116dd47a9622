// pamc validate: a model's region counters against MA trace files (docs/cli.md,
// "validate"). Reading and matching traces is compiler/analysis/ma_trace.h.
#include <map>
#include <string>
#include <vector>
#include "compiler/check/check.h"
#include "compiler/driver/subcommand.h"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "compiler/driver/driver_util.h"
#include "compiler/analysis/ma_trace.h"
#include "compiler/passes/pipeline.h"
#include "compiler/support/json.h"

namespace pamc {
namespace {

struct ValidateCommand {
  std::string file;
  LoadOptions load;
  std::map<std::string, std::string> bindings;  // -D: the point the counters are evaluated at
  std::vector<std::string> traces;              // --trace: one file per MPI task
  bool json = false;
};

}  // namespace
namespace {

// The shortest decimal that reads back as x: 725760, 33.351922, 0.1.
std::string fmt(double x) {
  char buf[40];
  if (x == std::floor(x) && std::fabs(x) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", x);
    return buf;
  }
  for (int p = 1; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  return buf;
}

std::string opt(const std::optional<double>& x) { return x ? fmt(*x) : "-"; }
Json json_opt(const std::optional<double>& x) { return x ? json_number_text(fmt(*x)) : Json(nullptr); }

// The trace's own value of the annotation differs from the model's prediction.
bool differs(const CounterCheck& c) {
  return c.predicted && c.annotated && std::fabs(*c.predicted - *c.annotated) > 1e-9 * std::fabs(*c.predicted) + 1e-12;
}

void print_text(std::ostream& out, const std::string& trace, const std::vector<RegionCheck>& regions) {
  out << "trace " << trace << "\n";
  for (const RegionCheck& r : regions) {
    out << "region " << r.region;
    if (!r.in_trace) out << ": not in the trace\n";
    else if (!r.in_model) out << ": not in the model (" << r.calls << (r.calls == 1 ? " call" : " calls") << ")\n";
    else out << ": " << r.calls << (r.calls == 1 ? " call" : " calls") << (r.calls > 1 ? ", measured is the mean" : "") << "\n";
    if (r.counters.empty()) continue;
    char line[200];
    std::snprintf(line, sizeof line, "  %-22s %22s %14s %9s  %s\n", "counter", "predicted", "measured", "error %",
                  "trace start value");
    out << line;
    for (const CounterCheck& c : r.counters) {
      std::string err = "-";
      if (c.error_percent) {
        char e[32];
        std::snprintf(e, sizeof e, "%+.2f", *c.error_percent);
        err = e;
      }
      std::string annotated = opt(c.annotated);
      if (differs(c)) annotated += " (differs from the model)";
      std::snprintf(line, sizeof line, "  %-22s %22s %14s %9s  %s\n", c.counter.c_str(), opt(c.predicted).c_str(),
                    opt(c.measured).c_str(), err.c_str(), c.annotated ? annotated.c_str() : "-");
      out << line;
    }
  }
}

Json trace_json(const std::string& trace, const std::vector<RegionCheck>& regions) {
  Json list = Json::array();
  for (const RegionCheck& r : regions) {
    Json counters = Json::object();
    for (const CounterCheck& c : r.counters)
      json_append(counters, c.counter,
                  {{"predicted", json_opt(c.predicted)}, {"measured", json_opt(c.measured)},
                   {"error_percent", json_opt(c.error_percent)}, {"trace_value", json_opt(c.annotated)}});
    list.push_back({{"region", r.region}, {"in_model", r.in_model}, {"in_trace", r.in_trace}, {"calls", r.calls},
                    {"counters", std::move(counters)}});
  }
  return {{"trace", trace}, {"regions", std::move(list)}};
}

}  // namespace

int cmd_validate(const ValidateCommand& c) {
  std::map<std::string, GiNaC::numeric> bindings;
  if (!parse_bindings(c.bindings, bindings)) return kUsageError;
  Diagnostics diags;
  auto comp = compile_file(c.file, c.load, Stage::Simplified, diags);
  if (!comp) return report(diags);
  report(diags);  // the warnings of a model that compiled
  std::vector<Trace> traces;
  for (const std::string& path : c.traces)
    if (auto t = read_ma_trace(path, diags)) traces.push_back(std::move(*t));
  if (diags.has_errors()) return report(diags);
  std::ostringstream out;
  try {
    Json list = Json::array();
    for (const Trace& trace : traces) {
      std::vector<RegionCheck> regions = validate_trace(comp->model, bindings, trace);
      if (c.json) list.push_back(trace_json(trace.path, regions));
      else print_text(out, trace.path, regions);
    }
    // A trace, a region and a counter a line.
    if (c.json)
      out << json_text({{"model", c.file}, {"traces", std::move(list)}},
                       {{"/traces", JsonLines::ItemsEvenEmpty},
                        {"/traces/*/regions", JsonLines::ItemsEvenEmpty},
                        {"/traces/*/regions/*/counters", JsonLines::Items}})
          << "\n";
  } catch (const CompileError& e) {
    return report(e);
  }
  std::cout << out.str();
  report(diags);  // warnings, if any
  return kOk;
}

namespace {

void options(po::options_description& d) {
  add_binding_option(d);
  d.add_options()
      ("trace", po::value<std::vector<std::string>>()->value_name("PATH")->composing(), "an MA trace file (one per MPI task); repeatable")
      ("json", "print JSON");
}

int run(const CommandLine& line) {
  ValidateCommand c;
  read_model_file(c, line);
  c.traces = line.strings("trace");
  if (c.traces.empty()) throw usage_error("validate: no --trace PATH given (an MA trace file)");
  c.json = line.flag("json");
  return cmd_validate(c);
}

}  // namespace

extern const Subcommand validate_command{"validate", "predicted vs measured counters (MA traces)",
                                          "FILE --trace PATH...", options, run};

}  // namespace pamc
