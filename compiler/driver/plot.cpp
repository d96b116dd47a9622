#include "compiler/driver/plot.h"
#include "compiler/driver/driver_util.h"

#include <spawn.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

extern char** environ;

namespace pamc {
namespace {

namespace fs = std::filesystem;

// A string literal for gnuplot (double quotes: backslash escapes, "\n" a new line).
std::string gp_quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out + "\"";
}

const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                         "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};

void write_panel(std::ostream& gp, const std::vector<PlotSeries>& series, std::size_t first_index,
                 const std::string& data) {
  gp << "plot ";
  for (std::size_t i = 0; i < series.size(); ++i) {
    bool points = series[i].x.size() <= 40;
    gp << (i ? ", \\\n     " : "") << gp_quote(data) << " index " << (first_index + i) << " using 1:2 with "
       << (points ? "linespoints pt 7 ps 0.6" : "lines") << " lw 2.5 lc rgb '" << kColors[i % 10]
       << "' title " << gp_quote(series[i].title);
  }
  gp << "\n";
}

// A temporary folder for gnuplot's files, removed with everything in it.
struct TempDir {
  fs::path dir;
  std::string error;
  TempDir() {
    const char* tmpdir = std::getenv("TMPDIR");
    std::string templ = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/pamc-plot-XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data())) error = "cannot create a temporary folder: " + std::string(std::strerror(errno));
    else dir = buf.data();
  }
  ~TempDir() {
    std::error_code ec;
    if (!dir.empty()) fs::remove_all(dir, ec);
  }
};

// The terminal lines for a WIDTH x HEIGHT image in FORMAT (pngcairo when gnuplot has it).
std::string terminal(const std::string& format, int width, int height) {
  std::ostringstream gp;
  if (format == "png")
    gp << "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
          "  set terminal pngcairo size " << width << "," << height << " font 'Sans,12' background rgb 'white'\n"
          "} else {\n"
          "  set terminal png size " << width << "," << height << " background rgb 'white'\n"
          "}\n";
  else
    gp << "set terminal svg size " << width << "," << height << " dynamic font 'Sans,12' background rgb 'white'\n";
  return gp.str();
}

// Runs gnuplot on the script and moves the image it wrote to dest; "" or an error.
std::string run_gnuplot(const std::string& gp_text, const fs::path& script, const fs::path& image,
                        const fs::path& log, const std::string& dest) {
  {
    std::ofstream s(script);
    s << gp_text;
    if (!s) return "cannot write the gnuplot script";
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  std::string script_s = script.string();
  char* argv[] = {const_cast<char*>("gnuplot"), script_s.data(), nullptr};
  pid_t pid;
  int rc = posix_spawnp(&pid, "gnuplot", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0)
    return rc == ENOENT ? "gnuplot not found: install gnuplot (Debian: gnuplot-nox) to draw plots"
                        : "cannot run gnuplot: " + std::string(std::strerror(rc));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::error_code ec;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !fs::exists(image, ec) || fs::file_size(image, ec) == 0) {
    std::ifstream l(log);
    std::string text((std::istreambuf_iterator<char>(l)), std::istreambuf_iterator<char>());
    return "gnuplot failed" + (text.empty() ? std::string() : ":\n" + text);
  }
  // Into place through an OutputFile (a unique temporary renamed over the destination).
  std::ifstream in(image, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) return "cannot read the plot gnuplot wrote";
  if (!write_file_atomically(dest, bytes)) return "cannot write " + dest;
  return "";
}

}  // namespace

std::string plot_format(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".png") return "png";
  if (ext == ".svg") return "svg";
  return "";
}

std::string draw_plot(const PlotSpec& spec) {
  std::string format = plot_format(spec.path);
  TempDir tmp;
  if (!tmp.error.empty()) return tmp.error;
  const fs::path& dir = tmp.dir;

  fs::path data = dir / "data.dat", script = dir / "plot.gp", image = dir / ("out." + format), log = dir / "gnuplot.log";
  {
    std::ofstream d(data);
    d.precision(17);
    auto block = [&](const PlotSeries& s) {
      for (std::size_t i = 0; i < s.x.size(); ++i) d << s.x[i] << " " << s.y[i] << "\n";
      d << "\n\n";
    };
    for (const PlotSeries& s : spec.series) block(s);
    for (const PlotSeries& s : spec.series2) block(s);
    if (!d) return "cannot write the plot data";
  }
  bool two = !spec.series2.empty();
  int height = two ? 900 : 600;
  std::ostringstream gp;
  gp << terminal(format, 1000, height);
  gp << "set output " << gp_quote(image.string()) << "\n"
     << "set termoption noenhanced\n"
     << "set encoding utf8\n"
     << "set border lw 1.2\n"
     << "set grid lc rgb '#d0d0d0' lw 1\n"
     // The legend below the plot, never on a curve (inside, a corner holds a curve as often
     // as not: a falling time starts top left).
     << "set key outside below center horizontal box\n"
     << "set xlabel " << gp_quote(spec.xlabel) << "\n"
     << "set format y '%.6g'\n";
  if (spec.logx) gp << "set logscale x " << spec.logx_base << "\n";
  for (const auto& [x, label] : spec.markers) {
    gp << "set arrow from " << x << ", graph 0 to " << x << ", graph 1 nohead dt 2 lw 1.5 lc rgb '#555555'\n";
    gp << "set label " << gp_quote(label) << " at " << x << ", graph 0.5 offset 0.8,0 tc rgb '#333333'\n";
  }
  if (two) gp << "set multiplot layout 2,1 title " << gp_quote(spec.title) << "\n";
  else gp << "set title " << gp_quote(spec.title) << " font 'Sans,14'\n";
  auto nonneg = [](const std::vector<PlotSeries>& ss) {
    for (const PlotSeries& s : ss)
      for (double y : s.y)
        if (y < 0) return false;
    return true;
  };
  gp << "set ylabel " << gp_quote(spec.ylabel) << "\n";
  if (spec.logy) gp << "set logscale y\n";
  else if (nonneg(spec.series)) gp << "set yrange [0:*]\n";
  write_panel(gp, spec.series, 0, data.string());
  if (two) {
    gp << (spec.logy ? "unset logscale y\n" : "") << "set ylabel " << gp_quote(spec.ylabel2) << "\n";
    if (spec.logy2) gp << "set logscale y 2\n";
    else gp << "set yrange [0:*]\n";
    write_panel(gp, spec.series2, spec.series.size(), data.string());
    gp << "unset multiplot\n";
  }
  gp << "set output\n";
  return run_gnuplot(gp.str(), script, image, log, spec.path);
}

std::string draw_heatmap(const HeatSpec& spec) {
  std::string format = plot_format(spec.path);
  TempDir tmp;
  if (!tmp.error.empty()) return tmp.error;
  fs::path data = tmp.dir / "data.dat", script = tmp.dir / "plot.gp", image = tmp.dir / ("out." + format),
           log = tmp.dir / "gnuplot.log";
  // Cells: x index, y index, log10(value) (NaN where the value is not positive), label.
  double lo = HUGE_VAL, hi = -HUGE_VAL;
  {
    std::ofstream d(data);
    d.precision(17);
    for (const HeatPanel& p : spec.panels) {
      for (std::size_t iy = 0; iy < spec.ys.size(); ++iy) {
        for (std::size_t ix = 0; ix < spec.xs.size(); ++ix) {
          double v = p.z[iy * spec.xs.size() + ix];
          if (v > 0 && std::isfinite(v)) {
            double l = std::log10(v);
            lo = std::min(lo, l), hi = std::max(hi, l);
            d << ix << " " << iy << " " << l << " " << static_cast<long>(std::floor(l)) << "\n";
          } else {
            d << ix << " " << iy << " NaN " << (v == 0 ? "0" : "-") << "\n";
          }
        }
        d << "\n";
      }
      d << "\n";
    }
    if (!d) return "cannot write the plot data";
  }
  if (lo > hi) lo = 0, hi = 1;
  std::size_t n = spec.panels.size();
  std::size_t cols = std::min<std::size_t>(3, n), rows = (n + cols - 1) / cols;
  int width = static_cast<int>(std::max<std::size_t>(600, 520 * cols)), height = static_cast<int>(80 + 420 * rows);
  auto tics = [](const std::vector<std::string>& v) {
    std::string t = "(";
    for (std::size_t i = 0; i < v.size(); ++i) t += (i ? ", " : "") + gp_quote(v[i]) + " " + std::to_string(i);
    return t + ")";
  };
  std::ostringstream gp;
  gp << terminal(format, width, height) << "set output " << gp_quote(image.string()) << "\n"
     << "set termoption noenhanced\n"
     << "set encoding utf8\n"
     << "set xlabel " << gp_quote(spec.xlabel) << "\nset ylabel " << gp_quote(spec.ylabel) << "\n"
     << "set xtics " << tics(spec.xs) << " font ',9'\nset ytics " << tics(spec.ys) << "\n"
     << "set xrange [-0.5:" << spec.xs.size() - 0.5 << "]\nset yrange [-0.5:" << spec.ys.size() - 0.5 << "]\n"
     << "set cbrange [" << std::floor(lo) << ":" << std::ceil(hi) << "]\n"
     << "set cblabel 'log10 of the value'\n"
     << "set palette defined (0 '#08306b', 0.5 '#6baed6', 1 '#f7fbff')\n"
     << "set datafile missing 'NaN'\n"
     << "unset key\n"
     << "set multiplot layout " << rows << "," << cols << " title " << gp_quote(spec.title) << "\n";
  for (std::size_t i = 0; i < n; ++i) {
    gp << "set title " << gp_quote(spec.panels[i].title) << "\n"
       << "plot " << gp_quote(data.string()) << " index " << i << " using 1:2:3 with image, \\\n"
       << "     " << gp_quote(data.string()) << " index " << i
       << " using 1:2:4 with labels font ',8' tc rgb '#d62728'\n";
  }
  gp << "unset multiplot\nset output\n";
  return run_gnuplot(gp.str(), script, image, log, spec.path);
}

}  // namespace pamc
