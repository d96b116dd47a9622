#include "compiler/driver/plot.h"
#include "compiler/driver/driver_util.h"

#include <spawn.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

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
  const char* tmpdir = std::getenv("TMPDIR");
  std::string templ = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/pamc-plot-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) return "cannot create a temporary folder: " + std::string(std::strerror(errno));
  fs::path dir(buf.data());
  struct Cleanup {
    fs::path d;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(d, ec);
    }
  } cleanup{dir};

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
  if (format == "png")
    gp << "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
          "  set terminal pngcairo size 1000," << height << " font 'Sans,12' background rgb 'white'\n"
          "} else {\n"
          "  set terminal png size 1000," << height << " background rgb 'white'\n"
          "}\n";
  else
    gp << "set terminal svg size 1000," << height << " dynamic font 'Sans,12' background rgb 'white'\n";
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
  {
    std::ofstream s(script);
    s << gp.str();
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
  if (!write_file_atomically(spec.path, bytes)) return "cannot write " + spec.path;
  return "";
}

}  // namespace pamc
