#include "compiler/analysis/ma_trace.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string_view>

#include "compiler/ast/ast.h"
#include "compiler/check/check.h"
#include "compiler/evaluate/evaluate_model.h"

namespace pamc {
namespace {

// ma_vec_loop_stop fields 5.. (0 is "MA"), in the order the runtime writes them.
const char* const kStopFields[] = {"cycles",           "stalled_cycles",        "vector_loadstore", "vector_flops",
                                   "vector_load_stride", "vector_load_allocated", "avl",              "scalar_flops",
                                   "scalar_loadstore", "dcache_misses"};
constexpr std::size_t kStopCount = 5 + sizeof kStopFields / sizeof kStopFields[0];  // 15 fields

// ma_vec_loop_start: (expression, value) pairs at fields 4/5, 6/7, 8/9, then the MV score.
struct StartPair {
  std::size_t expr_field;
  const char* counter;
};
const StartPair kStartPairs[] = {{4, "vector_loadstore"}, {6, "vector_flops"}, {8, "avl"}};
constexpr std::size_t kStartCount = 11;

struct Field {
  std::string text;  // trimmed
  std::uint32_t col;  // 1-based column of the field's first byte
};

std::vector<Field> split_fields(std::string_view line) {
  std::vector<Field> out;
  std::size_t start = 0;
  for (;;) {
    std::size_t colon = line.find(':', start);
    std::string_view f = line.substr(start, colon == std::string_view::npos ? std::string_view::npos : colon - start);
    std::size_t b = 0, e = f.size();
    while (b < e && std::isspace(static_cast<unsigned char>(f[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(f[e - 1]))) --e;
    out.push_back({std::string(f.substr(b, e - b)), static_cast<std::uint32_t>(start + b + 1)});
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  return out;
}

bool parse_number(const std::string& s, double& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(out);
}

struct Accum {
  TraceRegion region;
  std::map<std::string, double> measured_sum;
  std::map<std::string, double> annotated_sum;
  int starts = 0;
  int open = 0;  // starts not yet stopped
  Loc first_open;
};

}  // namespace

std::optional<Trace> read_ma_trace(const std::string& path, Diagnostics& diags) {
  std::string why;
  SourceFileP file = read_source_file(path, why);
  if (!file) {
    diags.file_error(path, DiagKind::IOError, "cannot read the trace: " + why);
    return std::nullopt;
  }
  diags.keep_file(file);
  std::size_t errors_before = diags.error_count();
  std::vector<Accum> regions;
  std::map<std::string, std::size_t> index;
  auto region = [&](const std::string& name) -> Accum& {
    auto [it, fresh] = index.emplace(name, regions.size());
    if (fresh) {
      regions.emplace_back();
      regions.back().region.name = name;
    }
    return regions[it->second];
  };
  for (std::uint32_t line = 1; line <= file->line_starts.size(); ++line) {
    std::string_view text = file->line_text(line);
    while (!text.empty() && (text.back() == '\r' || text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
    std::size_t lead = 0;
    while (lead < text.size() && (text[lead] == ' ' || text[lead] == '\t')) ++lead;
    if (text.substr(lead, 3) != "MA:") continue;  // not an MA line: program output, PAPI notes, ...
    std::vector<Field> f = split_fields(text);
    auto at = [&](std::size_t i) { return Loc{file.get(), line, i < f.size() ? f[i].col : static_cast<std::uint32_t>(text.size() + 1)}; };
    if (f.size() < 3) continue;
    const std::string& api = f[2].text;
    bool start = api == "ma_vec_loop_start", stop = api == "ma_vec_loop_stop";
    if (!start && !stop) continue;  // other MA annotations carry no vector-loop counters
    std::size_t want = start ? kStartCount : kStopCount;
    if (f.size() != want) {
      diags.error(at(std::min(f.size(), want)), DiagKind::DataError,
                  api + " line has " + std::to_string(f.size()) + " colon-separated fields, expected " +
                      std::to_string(want));
      if (f.size() > 3 && !f[3].text.empty()) {  // keep start/stop pairing: one error per bad line
        Accum& a = region(f[3].text);
        if (start && a.open++ == 0) a.first_open = at(3);
        if (stop && a.open > 0) --a.open;
      }
      continue;
    }
    if (f[3].text.empty()) {
      diags.error(at(3), DiagKind::DataError, api + " line without a loop name");
      continue;
    }
    Accum& a = region(f[3].text);
    bool ok = true;
    double depth;
    if (!parse_number(f[1].text, depth)) {
      diags.error(at(1), DiagKind::DataError, "context depth '" + f[1].text + "' is not a number");
      ok = false;
    }
    if (start) {
      std::map<std::string, double> values;
      for (const StartPair& p : kStartPairs) {
        if (!ok) break;
        double v;
        if (!parse_number(f[p.expr_field + 1].text, v)) {
          diags.error(at(p.expr_field + 1), DiagKind::DataError,
                      std::string("the value of the ") + p.counter + " expression, '" + f[p.expr_field + 1].text +
                          "', is not a number");
          ok = false;
          break;
        }
        values[p.counter] = v;
        if (!a.region.expression.count(p.counter)) a.region.expression[p.counter] = f[p.expr_field].text;
      }
      double mv = 0;
      if (ok && !parse_number(f[10].text, mv)) {
        diags.error(at(10), DiagKind::DataError, "MV score '" + f[10].text + "' is not a number");
        ok = false;
      }
      if (a.open++ == 0) a.first_open = at(3);  // opened even when malformed: no second error at its stop
      if (!ok) continue;
      values["mv"] = mv;
      for (const auto& [k, v] : values) a.annotated_sum[k] += v;
      ++a.starts;
    } else {
      std::map<std::string, double> values;
      for (std::size_t i = 5; i < kStopCount; ++i) {
        if (!ok) break;
        double v;
        if (!parse_number(f[i].text, v)) {
          diags.error(at(i), DiagKind::DataError,
                      std::string(kStopFields[i - 5]) + " '" + f[i].text + "' is not a number");
          ok = false;
          break;
        }
        values[kStopFields[i - 5]] = v;
      }
      if (!ok) {
        if (a.open > 0) --a.open;  // closes its start all the same: one error per bad line
        continue;
      }
      if (a.open == 0) {
        diags.error(at(3), DiagKind::DataError, "ma_vec_loop_stop of '" + f[3].text + "' without a ma_vec_loop_start");
        continue;
      }
      --a.open;
      if (a.region.calls++ == 0) a.region.loop_id = f[4].text;
      for (const auto& [k, v] : values) a.measured_sum[k] += v;
    }
  }
  for (Accum& a : regions)
    if (a.open > 0)
      diags.error(a.first_open, DiagKind::DataError, "ma_vec_loop_start of '" + a.region.name + "' is never stopped");
  if (diags.error_count() > errors_before) return std::nullopt;
  Trace trace;
  trace.path = path;
  for (Accum& a : regions) {
    for (const auto& [k, v] : a.measured_sum) a.region.measured[k] = v / a.region.calls;
    for (const auto& [k, v] : a.annotated_sum) a.region.annotated[k] = v / a.starts;
    trace.regions.push_back(std::move(a.region));
  }
  return trace;
}

std::vector<RegionCheck> validate_trace(const CostModel& model, const std::map<std::string, GiNaC::numeric>& bindings,
                                        const Trace& trace) {
  // The model's regions, in declaration order, and their counters.
  std::vector<std::string> order;
  std::map<std::string, std::map<std::string, const CostEquation*>> counters;
  for (const CostEquation& e : model.equations) {
    auto [region, counter] = ast::split_counter_name(e.name);
    if (region.empty()) continue;
    if (!counters.count(region)) order.push_back(region);
    counters[region][counter] = &e;
  }
  for (const TraceRegion& t : trace.regions)
    if (!counters.count(t.name)) order.push_back(t.name);

  EvalRequest request;
  request.bindings = bindings;
  for (const std::string& r : order)
    if (counters.count(r))
      for (const auto& [c, e] : counters[r]) request.targets.push_back(e->name);
  std::map<std::string, double> predicted;
  if (!request.targets.empty()) {
    EvalResult result = evaluate_model(model, request);
    for (const auto& [name, value] : result.values) {
      if (value.is_vector) {
        Diagnostic d;
        d.kind = DiagKind::VectorValue;
        d.loc = model.equation(name)->loc;
        d.message = "counter '" + name + "' is a vector; a workload counter must be a number";
        throw CompileError{d};
      }
      predicted[name] = value.scalar.to_double();
    }
  }

  std::vector<RegionCheck> out;
  for (const std::string& r : order) {
    RegionCheck rc;
    rc.region = r;
    rc.in_model = counters.count(r) > 0;
    const TraceRegion* t = nullptr;
    for (const TraceRegion& x : trace.regions)
      if (x.name == r) t = &x;
    rc.in_trace = t != nullptr;
    if (t) rc.calls = t->calls;
    for (const MaCounter& mc : ma_counters()) {
      CounterCheck c;
      c.counter = mc.name;
      if (rc.in_model && counters[r].count(mc.name)) c.predicted = predicted[counters[r][mc.name]->name];
      if (t && t->measured.count(mc.name)) c.measured = t->measured.at(mc.name);
      if (t && t->annotated.count(mc.name)) c.annotated = t->annotated.at(mc.name);
      // Only what the model predicts is reported (an unmodelled region: what the trace has).
      if (rc.in_model ? !c.predicted : !c.measured && !c.annotated) continue;
      if (c.predicted && c.measured && *c.predicted != 0)
        c.error_percent = 100.0 * (*c.measured - *c.predicted) / *c.predicted;
      rc.counters.push_back(c);
    }
    out.push_back(std::move(rc));
  }
  return out;
}

}  // namespace pamc
