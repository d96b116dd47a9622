// pamc sweep, explain, sensitivity (docs/cli.md).
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sys/stat.h>

#include "compiler/driver/commands.h"
#include "compiler/driver/driver_util.h"
#include "compiler/driver/plot.h"
#include "compiler/passes/analysis.h"
#include "compiler/passes/evaluate_model.h"
#include "compiler/passes/pipeline.h"
#include "compiler/passes/sweep.h"

namespace pamc {
namespace {

// Swept values: the shortest text that reads back as the same double (the values are
// correctly rounded from exact decimals, so 0.3 prints as 0.3).
// Whole numbers print in full (10000000, not 1e+07), as `pamc eval` prints them.
inline char* put_shortest(char* p, double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_chars(p, p + 32, static_cast<long long>(v)).ptr;
  return std::to_chars(p, p + 32, v).ptr;
}

// Results: at most 15 significant digits, which hides binary rounding (0.1 * 3 * 1000
// prints 300, as `pamc eval` does) and keeps every digit a double carries reliably. The
// shortest form is tried first: it is much faster and usually short enough.
inline char* put_double(char* p, double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_chars(p, p + 32, static_cast<long long>(v)).ptr;
  char* e = std::to_chars(p, p + 32, v).ptr;
  int digits = 0;
  for (char* q = p; q < e && *q != 'e'; ++q) digits += (*q >= '0' && *q <= '9');
  if (digits <= 15) return e;
  return std::to_chars(p, p + 32, v, std::chars_format::general, 15).ptr;
}

// Output for CSV rows: stdout, or an OutputFile (a temporary renamed into place at the end).
struct CsvSink {
  OutputFile file;
  std::FILE* f = nullptr;
  bool to_stdout = false;
  bool open(const std::string& p) {
    to_stdout = p.empty();
    if (to_stdout) {
      f = stdout;
      return true;
    }
    if (!file.open(p)) return false;
    f = file.stream();
    return true;
  }
  bool write(const char* data, std::size_t n) { return std::fwrite(data, 1, n, f) == n; }
  bool commit() { return to_stdout ? std::fflush(stdout) == 0 : file.commit(); }
};

std::string fixed_text(const std::map<std::string, GiNaC::numeric>& fixed) {
  std::string out;
  for (const auto& [name, v] : fixed) out += (out.empty() ? "" : ", ") + name + " = " + format_number(v);
  return out;
}

}  // namespace

int cmd_sweep(const SweepCommand& c) {
  using clock = std::chrono::steady_clock;
  std::map<std::string, GiNaC::numeric> fixed;
  if (!parse_bindings(c.bindings, fixed)) return kUsageError;
  std::vector<SweepRange> ranges;
  for (const std::string& s : c.sweeps) {
    SweepRange r;
    std::string error;
    if (!parse_sweep_range(s, r, error)) {
      std::cerr << "pamc: sweep: --sweep " << s << ": " << error << "\n";
      return kUsageError;
    }
    for (const SweepRange& q : ranges)
      if (q.name == r.name) {
        std::cerr << "pamc: sweep: " << r.name << " is swept twice\n";
        return kUsageError;
      }
    if (fixed.count(r.name)) {
      std::cerr << "pamc: sweep: " << r.name << " is both bound (-D) and swept (--sweep)\n";
      return kUsageError;
    }
    ranges.push_back(std::move(r));
  }
  std::size_t points = 1;
  for (const SweepRange& r : ranges) {
    if (points > 1'000'000'000 / r.size()) {
      std::cerr << "pamc: sweep: the grid has more than 10^9 points\n";
      return kUsageError;
    }
    points *= r.size();
  }
  const std::size_t kMaxPlotPoints = 2'000'000;
  if (c.heatmap && (c.plot.empty() || ranges.size() != 2 || c.speedup)) {
    std::cerr << "pamc: sweep: --heatmap draws with --plot over exactly two --sweep parameters (this has "
              << ranges.size() << (c.plot.empty() ? ", and no --plot" : "") << (c.speedup ? ", and --speedup" : "")
              << ")\n";
    return kUsageError;
  }
  if (!c.plot.empty()) {
    if (plot_format(c.plot).empty()) {
      std::cerr << "pamc: sweep: --plot " << c.plot << ": the file name must end in .png or .svg\n";
      return kUsageError;
    }
    if (points > kMaxPlotPoints) {
      std::cerr << "pamc: sweep: --plot draws at most " << kMaxPlotPoints << " points; this grid has " << points << "\n";
      return kUsageError;
    }
  }

  Diagnostics diags;
  auto comp = compile_file(c.file, c.load, Stage::Simplified, diags);
  if (!comp) return report(diags);
  report(diags);  // the warnings of a model that compiled
  const CostModel& model = comp->model;
  try {
    auto t0 = clock::now();
    Sweep sweep(model, fixed, ranges, c.targets);
    for (const auto& [name, why] : sweep.slow_targets())
      std::cerr << "pamc: sweep: note: " << name << " is evaluated exactly at each point (slow): " << why << "\n";
    sweep.validate();
    const std::size_t nt = sweep.target_names().size();
    const std::size_t n0 = sweep.ranges()[0].size();
    const std::size_t block = points / n0;  // points per value of the first parameter
    std::vector<double> base;
    if (c.speedup) {
      base.resize(block * nt);
      sweep.evaluate(0, block, base.data());
    }
    std::vector<double> all;
    if (!c.plot.empty()) all.resize(points * nt);

    CsvSink sink;
    if (!sink.open(c.csv)) {
      std::cerr << c.csv << ": error: cannot write the output file [IOError]\n";
      return kModelError;
    }
    std::string header;
    for (const SweepRange& r : sweep.ranges()) header += (header.empty() ? "" : ",") + r.name;
    for (const std::string& t : sweep.target_names()) header += "," + t;
    if (c.speedup)
      for (const std::string& t : sweep.target_names()) header += ",speedup_" + t;
    header += "\n";
    sink.write(header.data(), header.size());

    auto label = [&](std::size_t k, std::size_t i) {
      char b[40];
      return std::string(b, put_shortest(b, sweep.ranges()[k].dvalues[i]));
    };
    const std::size_t kChunk = 1 << 15;
    std::vector<double> vals(kChunk * nt);
    std::vector<char> text;
    double eval_seconds = 0, format_seconds = 0;
    std::vector<std::size_t> idx;
    for (std::size_t begin = 0; begin < points; begin += kChunk) {
      std::size_t end = std::min(points, begin + kChunk);
      auto a = clock::now();
      sweep.evaluate(begin, end, vals.data());
      auto b = clock::now();
      eval_seconds += std::chrono::duration<double>(b - a).count();
      if (!all.empty()) std::copy(vals.begin(), vals.begin() + (end - begin) * nt, all.begin() + begin * nt);
      text.resize((end - begin) * (64 * sweep.ranges().size() + 40 * nt * 2 + 2));
      char* p = text.data();
      sweep.indices(begin, idx);
      for (std::size_t i = begin; i < end; ++i) {
        for (std::size_t k = 0; k < idx.size(); ++k) {
          if (k) *p++ = ',';
          p = put_shortest(p, sweep.ranges()[k].dvalues[idx[k]]);
        }
        const double* row = &vals[(i - begin) * nt];
        for (std::size_t t = 0; t < nt; ++t) {
          *p++ = ',';
          p = put_double(p, row[t]);
        }
        if (c.speedup)
          for (std::size_t t = 0; t < nt; ++t) {
            *p++ = ',';
            p = put_double(p, base[(i % block) * nt + t] / row[t]);
          }
        *p++ = '\n';
        for (std::size_t k = idx.size(); k-- > 0;) {
          if (++idx[k] < sweep.ranges()[k].size()) break;
          idx[k] = 0;
        }
      }
      if (!sink.write(text.data(), static_cast<std::size_t>(p - text.data()))) {
        std::cerr << (c.csv.empty() ? "stdout" : c.csv) << ": error: cannot write the output [IOError]\n";
        return kModelError;
      }
      format_seconds += std::chrono::duration<double>(clock::now() - b).count();
    }
    if (c.timing) {
      double total = std::chrono::duration<double>(clock::now() - t0).count();
      std::fprintf(stderr,
                   "sweep: %zu points x %zu targets; evaluation %.4f s (%.4g points/s); CSV formatting and "
                   "writing %.4f s; evaluation + CSV %.4g points/s; total with setup %.4f s\n",
                   points, nt, eval_seconds, points / std::max(eval_seconds, 1e-12), format_seconds,
                   points / std::max(eval_seconds + format_seconds, 1e-12), total);
    }

    if (c.heatmap) {
      HeatSpec spec;
      spec.path = c.plot;
      std::string fixed_part = fixed_text(fixed);
      spec.title = std::filesystem::path(c.file).filename().string() + " over " + sweep.ranges()[0].name + " and " +
                   sweep.ranges()[1].name + ": shade and label = order of magnitude" +
                   (fixed_part.empty() ? "" : "  (" + fixed_part + ")");
      spec.xlabel = sweep.ranges()[0].name;
      spec.ylabel = sweep.ranges()[1].name;
      for (std::size_t i = 0; i < n0; ++i) spec.xs.push_back(label(0, i));
      for (std::size_t i = 0; i < block; ++i) spec.ys.push_back(label(1, i));
      for (std::size_t t = 0; t < nt; ++t) {
        HeatPanel panel;
        panel.title = sweep.target_names()[t];
        panel.z.resize(n0 * block);
        for (std::size_t i0 = 0; i0 < n0; ++i0)
          for (std::size_t i1 = 0; i1 < block; ++i1) panel.z[i1 * n0 + i0] = all[(i0 * block + i1) * nt + t];
        spec.panels.push_back(std::move(panel));
      }
      std::string err = draw_heatmap(spec);
      if (!err.empty()) {
        std::cerr << c.plot << ": error: " << err << " [IOError]\n";
        return kModelError;
      }
    } else if (!c.plot.empty()) {
      PlotSpec spec;
      spec.path = c.plot;
      const SweepRange& r0 = sweep.ranges()[0];
      std::string x = r0.name;
      std::string fixed_part = fixed_text(fixed);
      std::string names;
      for (const std::string& t : sweep.target_names()) names += (names.empty() ? "" : ", ") + t;
      std::string stem = std::filesystem::path(c.file).filename().string();
      spec.title = stem + ": " + names + " against " + x + (fixed_part.empty() ? "" : "  (" + fixed_part + ")");
      spec.xlabel = x;
      spec.ylabel = "predicted time " + (nt == 1 ? sweep.target_names()[0] : std::string("T"));
      spec.logx = r0.geometric;
      if (r0.geometric && r0.step == 2) spec.logx_base = 2;
      bool all_positive = std::all_of(all.begin(), all.end(), [](double v) { return v > 0; });
      spec.logy = r0.geometric && all_positive;
      // One curve per target and combination of the other swept parameters.
      for (std::size_t inner = 0; inner < block; ++inner) {
        std::string suffix;
        sweep.indices(inner, idx);
        for (std::size_t k = 1; k < idx.size(); ++k)
          suffix += (suffix.empty() ? "" : ", ") + sweep.ranges()[k].name + " = " + label(k, idx[k]);
        for (std::size_t t = 0; t < nt; ++t) {
          PlotSeries s, sp;
          s.title = (nt > 1 || suffix.empty() ? sweep.target_names()[t] : std::string()) +
                    (suffix.empty() ? "" : (nt > 1 ? ", " : "") + suffix);
          sp.title = s.title;
          for (std::size_t i0 = 0; i0 < n0; ++i0) {
            double v = all[(i0 * block + inner) * nt + t];
            s.x.push_back(r0.dvalues[i0]);
            s.y.push_back(v);
            if (c.speedup) {
              sp.x.push_back(r0.dvalues[i0]);
              sp.y.push_back(all[inner * nt + t] / v);
            }
          }
          spec.series.push_back(std::move(s));
          if (c.speedup) spec.series2.push_back(std::move(sp));
        }
      }
      if (c.speedup) {
        spec.ylabel2 = "speedup T(" + x + " = " + label(0, 0) + ") / T(" + x + ")";
        spec.logy2 = spec.logy;
      }
      // Where the dominant term of a max/min changes (pamc explain), when only one
      // parameter is swept.
      if (sweep.ranges().size() == 1) {
        double lo = std::min(r0.first.to_double(), r0.last.to_double());
        double hi = std::max(r0.first.to_double(), r0.last.to_double());
        for (const std::string& t : sweep.target_names())
          for (const auto& [at, what] : crossovers_in(model, t, fixed, x)) {
            double v = at.to_double();
            if (v > lo && v < hi) spec.markers.emplace_back(v, x + " = " + format_number(at) + " (" + what + ")");
          }
      }
      std::string err = draw_plot(spec);
      if (!err.empty()) {
        std::cerr << c.plot << ": error: " << err << " [IOError]\n";
        return kModelError;
      }
    }
    if (!sink.commit()) {
      std::cerr << (c.csv.empty() ? "stdout" : c.csv) << ": error: cannot write the output [IOError]\n";
      return kModelError;
    }
  } catch (const CompileError& e) {
    render_diagnostic(std::cerr, e.diag);
    return kModelError;
  }
  return kOk;
}

namespace {

template <typename Analyse, typename Format>
int point_command(const PointCommand& c, Analyse analyse, Format format) {
  std::map<std::string, GiNaC::numeric> bindings;
  if (!parse_bindings(c.bindings, bindings)) return kUsageError;
  Diagnostics diags;
  auto comp = compile_file(c.file, c.load, Stage::Simplified, diags);
  if (!comp) return report(diags);
  report(diags);  // the warnings of a model that compiled
  try {
    std::cout << format(analyse(comp->model, bindings, c.targets), c.json);
  } catch (const CompileError& e) {
    render_diagnostic(std::cerr, e.diag);
    return kModelError;
  }
  return kOk;
}

}  // namespace

int cmd_explain(const PointCommand& c) { return point_command(c, explain_model, format_explain); }
int cmd_sensitivity(const PointCommand& c) { return point_command(c, sensitivity_model, format_sensitivity); }

}  // namespace pamc
