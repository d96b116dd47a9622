// The pamc command: subcommands and their options, nothing else. Each subcommand runs the
// pipeline (compiler/passes/pipeline.h) to the stage it needs and prints one result.
// Exit status: 0 success, 1 model error, 2 usage error (SPEC section 4).
#include <pthread.h>

#include <boost/program_options.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/ast/ast.h"
#include "compiler/driver/commands.h"
#include "compiler/symbolic/progress.h"
#include "compiler/driver/fit_command.h"
#include "compiler/driver/validate_command.h"

namespace po = boost::program_options;
using namespace pamc;

namespace {

struct UsageError {
  std::string message;
};

const char* kTopHelp =
    "usage: pamc <command> [options] FILE\n"
    "\n"
    "Compiles Pamela performance models into closed-form symbolic cost models.\n"
    "\n"
    "commands:\n"
    "  check      parse and check a model; diagnostics only\n"
    "  compile    print or write the model at a stage (parsed, normalized, time, simplified)\n"
    "  eval       evaluate the cost model for parameter values\n"
    "  simulate   discrete-event simulation of the model\n"
    "  sweep      evaluate over parameter ranges (CSV, plot)\n"
    "  explain    which argument of each max/min dominates at a point, and where they cross\n"
    "  sensitivity  partial derivatives and elasticities of the cost equations at a point\n"
    "  validate   predicted vs measured counters (MA traces)\n"
    "  fit        least-squares calibration of unknown constants\n"
    "\n"
    "Run 'pamc <command> --help' for a command's options; 'pamc --version' for the version.\n";

po::options_description common_options() {
  po::options_description d("common options");
  d.add_options()
      ("help,h", "show this help")
      ("include,I", po::value<std::vector<std::string>>()->composing(), "add DIR to the import path")
      ("machine", po::value<std::vector<std::string>>()->composing(), "import machines/NAME.pam");
  return d;
}

void add_bindings(po::options_description& d) {
  d.add_options()("define,D", po::value<std::vector<std::string>>()->composing(),
                  "bind a parameter: -D NAME=VALUE (repeatable)");
}

struct Parsed {
  po::variables_map vm;
  std::string file;
};

Parsed parse_command(const std::string& command, const std::vector<std::string>& args,
                     const po::options_description& options, const std::string& usage) {
  po::options_description all;
  all.add(options);
  all.add_options()("file", po::value<std::string>(), "model file");
  po::positional_options_description pos;
  pos.add("file", 1);
  Parsed p;
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), p.vm);
    po::notify(p.vm);
  } catch (const po::error& e) {
    throw UsageError{command + ": " + e.what()};
  }
  if (p.vm.count("help")) {
    std::cout << "usage: pamc " << command << " " << usage << "\n\n" << options << "\n";
    std::exit(0);
  }
  if (!p.vm.count("file")) throw UsageError{command + ": no model FILE given (see 'pamc " + command + " --help')"};
  p.file = p.vm["file"].as<std::string>();
  return p;
}

std::vector<std::string> strings(const po::variables_map& vm, const char* name) {
  return vm.count(name) ? vm[name].as<std::vector<std::string>>() : std::vector<std::string>{};
}

LoadOptions load_options(const po::variables_map& vm) {
  LoadOptions o;
  o.include_dirs = strings(vm, "include");
  o.machines = strings(vm, "machine");
  return o;
}

std::map<std::string, std::string> bindings(const po::variables_map& vm) {
  std::map<std::string, std::string> out;
  for (const std::string& d : strings(vm, "define")) {
    std::size_t eq = d.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == d.size())
      throw UsageError{"-D " + d + ": expected NAME=VALUE"};
    out[d.substr(0, eq)] = d.substr(eq + 1);
  }
  return out;
}

// What every command that evaluates a model reads the same way: the file, the import
// options, -D bindings and --target names.
template <class Command>
void read_model_options(Command& c, const Parsed& p) {
  c.file = p.file;
  c.load = load_options(p.vm);
  c.bindings = bindings(p.vm);
  c.targets = strings(p.vm, "target");
}

int run(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kTopHelp;
    return 2;
  }
  std::string command = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << kTopHelp;
    return 0;
  }
  if (command == "--version") {
    std::cout << "pamc " << PAMC_VERSION << "\n";
    return 0;
  }

  po::options_description options(command + " options");
  options.add(common_options());
  if (command == "check") {
    Parsed p = parse_command(command, args, options, "FILE");
    return cmd_check(p.file, load_options(p.vm));
  }
  if (command == "compile") {
    options.add_options()
        ("stage", po::value<std::string>()->default_value("simplified"), "parsed | normalized | time | simplified")
        ("emit", po::value<std::string>()->default_value("pamela"), "pamela | cpp | octave | json")
        ("output,o", po::value<std::string>(), "write to PATH (a folder for --emit octave) instead of stdout")
        ("all", "also print phi_, delta_, omega_ and non-top-level equations")
        ("stats", "print how many reductions remain and how often each rule fired (stderr)");
    Parsed p = parse_command(command, args, options, "FILE [--stage S] [--emit E] [-o PATH] [--all] [--stats]");
    CompileCommand c;
    c.file = p.file;
    c.load = load_options(p.vm);
    c.stage = p.vm["stage"].as<std::string>();
    c.emit = p.vm["emit"].as<std::string>();
    if (p.vm.count("output")) c.output = p.vm["output"].as<std::string>();
    c.all = p.vm.count("all") > 0;
    c.stats = p.vm.count("stats") > 0;
    static const std::vector<std::string> stages{"parsed", "normalized", "time", "simplified"};
    static const std::vector<std::string> emits{"pamela", "cpp", "octave", "json"};
    if (std::find(stages.begin(), stages.end(), c.stage) == stages.end())
      throw UsageError{"compile: unknown --stage '" + c.stage + "' (parsed, normalized, time, simplified)"};
    if (std::find(emits.begin(), emits.end(), c.emit) == emits.end())
      throw UsageError{"compile: unknown --emit '" + c.emit + "' (pamela, cpp, octave, json)"};
    return cmd_compile(c);
  }
  if (command == "eval") {
    add_bindings(options);
    options.add_options()
        ("target", po::value<std::vector<std::string>>()->composing(), "evaluate NAME (T_main, a process L meaning T_L, or a region counter REGION.COUNTER); repeatable")
        ("json", "print a JSON object {\"T_main\": value, ...}")
        ("brute-force", "evaluate the unsimplified time-domain model, unrolling every reduction (a reference for the closed form)")
        ("max-terms", po::value<double>(), "stop with an error when a point needs more reduction terms than this (a loop left open): default 1e9, about 10 s compiled; 3e7 with --brute-force, about 10 s unrolled exactly");
    Parsed p = parse_command(command, args, options, "FILE [-D NAME=VALUE]... [--target NAME]... [--json] [--brute-force] [--max-terms N]");
    EvalCommand c;
    read_model_options(c, p);
    c.json = p.vm.count("json") > 0;
    c.brute_force = p.vm.count("brute-force") > 0;
    c.max_terms = p.vm.count("max-terms") ? p.vm["max-terms"].as<double>() : c.brute_force ? 3e7 : 1e9;
    pamc::sym::install_interrupt_handler();  // Ctrl-C: a clean error at the next tick
    return cmd_eval(c);
  }
  if (command == "simulate") {
    add_bindings(options);
    options.add_options()
        ("dist", po::value<std::string>()->default_value("det"), "det | exp: durations as given, or exponential with that mean")
        ("seed", po::value<unsigned long long>()->default_value(1), "random seed")
        ("runs", po::value<int>()->default_value(1), "number of runs")
        ("max-events", po::value<unsigned long long>()->default_value(1000000000ULL), "stop with an error after this many events per run (0: no limit)")
        ("target", po::value<std::vector<std::string>>()->composing(), "simulate process NAME (default: top-level processes)")
        ("json", "print JSON");
    Parsed p = parse_command(command, args, options, "FILE [-D ...] [--dist det|exp] [--seed S] [--runs K] [--json]");
    SimulateCommand c;
    read_model_options(c, p);
    c.dist = p.vm["dist"].as<std::string>();
    if (c.dist != "det" && c.dist != "exp") throw UsageError{"simulate: --dist must be det or exp"};
    c.seed = p.vm["seed"].as<unsigned long long>();
    c.runs = p.vm["runs"].as<int>();
    if (c.runs < 1) throw UsageError{"simulate: --runs must be at least 1"};
    c.max_events = p.vm["max-events"].as<unsigned long long>();
    pamc::sym::install_interrupt_handler();  // Ctrl-C: a clean error at the next 2^20 events
    c.json = p.vm.count("json") > 0;
    return cmd_simulate(c);
  }
  if (command == "sweep") {
    add_bindings(options);
    options.add_options()
        ("sweep", po::value<std::vector<std::string>>()->composing(),
         "NAME=FIRST:LAST[:STEP|:xFACTOR]: a linear (step 1 by default) or geometric range; repeat for a grid "
         "(cartesian product, the first --sweep varying slowest)")
        ("target", po::value<std::vector<std::string>>()->composing(), "evaluate NAME (T_main, or a process L meaning T_L); repeatable")
        ("csv", po::value<std::string>(), "write the CSV to PATH instead of stdout")
        ("plot", po::value<std::string>(), "draw time against the first swept parameter into PATH (.png or .svg; needs gnuplot)")
        ("speedup", "add speedup columns T(first)/T(x) to the CSV, and a speedup panel to the plot")
        ("timing", "print evaluation and output throughput (points/s) on stderr")
        ("heatmap", "with --plot and two --sweep: one heat map per target, shaded by order of magnitude");
    Parsed p = parse_command(command, args, options,
                             "FILE [-D NAME=VALUE]... --sweep NAME=FIRST:LAST[:STEP|:xFACTOR]... [--target NAME]... "
                             "[--csv PATH] [--plot PATH.png|PATH.svg] [--speedup] [--heatmap]");
    SweepCommand c;
    read_model_options(c, p);
    c.sweeps = strings(p.vm, "sweep");
    if (c.sweeps.empty()) throw UsageError{"sweep: give at least one --sweep NAME=FIRST:LAST[:STEP|:xFACTOR]"};
    if (p.vm.count("csv")) c.csv = p.vm["csv"].as<std::string>();
    if (p.vm.count("plot")) c.plot = p.vm["plot"].as<std::string>();
    c.speedup = p.vm.count("speedup") > 0;
    c.timing = p.vm.count("timing") > 0;
    c.heatmap = p.vm.count("heatmap") > 0;
    return cmd_sweep(c);
  }
  if (command == "explain" || command == "sensitivity") {
    add_bindings(options);
    options.add_options()
        ("target", po::value<std::vector<std::string>>()->composing(), "analyse NAME (T_main, or a process L meaning T_L); repeatable")
        ("json", "print JSON");
    Parsed p = parse_command(command, args, options, "FILE [-D NAME=VALUE]... [--target NAME]... [--json]");
    PointCommand c;
    read_model_options(c, p);
    c.json = p.vm.count("json") > 0;
    return command == "explain" ? cmd_explain(c) : cmd_sensitivity(c);
  }
  if (command == "fit") {
    add_bindings(options);
    options.add_options()
        ("data", po::value<std::string>(), "CSV of measurements: a header of column names, one row per measurement")
        ("fit", po::value<std::vector<std::string>>()->composing(), "NAME[,NAME]...: the parameters to fit (repeatable)")
        ("target", po::value<std::vector<std::string>>()->composing(), "the equation measured: T_main (default), or a process L meaning T_L")
        ("measured", po::value<std::string>(), "the CSV column of measured values (default: the column named after the target, 'measured' or 'time')")
        ("relative", "minimise relative residuals (predicted - measured) / measured instead of absolute ones")
        ("start", po::value<std::vector<std::string>>()->composing(), "NAME=VALUE: where Levenberg-Marquardt starts for a fitted NAME (default: its declared default, else 1)")
        ("max-iterations", po::value<int>()->default_value(200), "Levenberg-Marquardt iteration limit")
        ("json", "print JSON")
        ("output,o", po::value<std::string>(), "write the cost model with the fitted values as parameter defaults to PATH");
    Parsed p = parse_command(command, args, options,
                             "FILE --data CSV --fit NAME[,NAME]... [-D NAME=VALUE]... [--target NAME] [--measured COLUMN] "
                             "[--relative] [--start NAME=VALUE]... [--json] [-o PATH]");
    FitCommand c;
    read_model_options(c, p);
    if (c.targets.size() > 1) throw UsageError{"fit: give at most one --target"};
    if (!p.vm.count("data")) throw UsageError{"fit: no --data CSV given"};
    c.data = p.vm["data"].as<std::string>();
    for (const std::string& list : strings(p.vm, "fit")) {
      std::stringstream in(list);
      for (std::string name; std::getline(in, name, ',');) {
        if (name.empty()) throw UsageError{"fit: --fit " + list + ": empty name"};
        c.fit.push_back(name);
      }
      if (!list.empty() && list.back() == ',') throw UsageError{"fit: --fit " + list + ": empty name"};
    }
    if (c.fit.empty()) throw UsageError{"fit: no --fit NAME given (the parameters to calibrate)"};
    for (std::size_t i = 0; i < c.fit.size(); ++i) {
      if (std::find(c.fit.begin(), c.fit.begin() + static_cast<long>(i), c.fit[i]) != c.fit.begin() + static_cast<long>(i))
        throw UsageError{"fit: --fit " + c.fit[i] + " is given twice"};
      if (c.bindings.count(c.fit[i])) throw UsageError{"fit: " + c.fit[i] + " is both fitted (--fit) and fixed (-D)"};
    }
    for (const std::string& s : strings(p.vm, "start")) {
      std::size_t eq = s.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == s.size()) throw UsageError{"fit: --start " + s + ": expected NAME=VALUE"};
      c.start[s.substr(0, eq)] = s.substr(eq + 1);
    }
    if (p.vm.count("measured")) c.measured = p.vm["measured"].as<std::string>();
    c.relative = p.vm.count("relative") > 0;
    c.max_iterations = p.vm["max-iterations"].as<int>();
    if (c.max_iterations < 1) throw UsageError{"fit: --max-iterations must be at least 1"};
    c.json = p.vm.count("json") > 0;
    if (p.vm.count("output")) c.output = p.vm["output"].as<std::string>();
    return cmd_fit(c);
  }
  if (command == "validate") {
    add_bindings(options);
    options.add_options()
        ("trace", po::value<std::vector<std::string>>()->composing(), "an MA trace file (one per MPI task); repeatable")
        ("json", "print JSON");
    Parsed p = parse_command(command, args, options, "FILE --trace PATH... [-D NAME=VALUE]... [--json]");
    ValidateCommand c;
    c.file = p.file;
    c.load = load_options(p.vm);
    c.bindings = bindings(p.vm);
    c.traces = strings(p.vm, "trace");
    if (c.traces.empty()) throw UsageError{"validate: no --trace PATH given (an MA trace file)"};
    c.json = p.vm.count("json") > 0;
    return cmd_validate(c);
  }
  throw UsageError{"unknown command '" + command + "' (see 'pamc --help')"};
}

}  // namespace

namespace {

int run_guarded(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const UsageError& e) {
    std::cerr << "pamc: " << e.message << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "pamc: error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "pamc: internal error: " << e.what() << "\n";
    return 3;
  }
}

struct MainArgs {
  int argc;
  char** argv;
  int rc;
};

// The stages walk the model recursively, and a model's depth is the user's: a chain of
// 20,000 processes each calling the previous one is a real model. The command runs on a
// thread with a 1 GiB stack (address space only: pages are touched as used), which holds
// such chains with room to spare; the front end's own limits (kMaxAstDepth) stay in force.
constexpr std::size_t kStackBytes = std::size_t(1) << 30;

extern "C" void* main_thread(void* p) {
  auto* a = static_cast<MainArgs*>(p);
  a->rc = run_guarded(a->argc, a->argv);
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  MainArgs args{argc, argv, 3};
  pthread_attr_t attr;
  pthread_t thread;
  if (pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, kStackBytes) == 0 &&
      pthread_create(&thread, &attr, main_thread, &args) == 0) {
    pthread_attr_destroy(&attr);
    pthread_join(thread, nullptr);
    return args.rc;
  }
  return run_guarded(argc, argv);  // no thread: the default stack
}
