// The pamc command: finds the subcommand in the table (subcommands.def), reads its
// options and runs it. Each subcommand is one file with its options and its run function
// (subcommand.h). Exit status: 0 success, 1 model error, 2 usage error (docs/cli.md).
#include <pthread.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "compiler/driver/driver_util.h"
#include "compiler/driver/subcommand.h"

using namespace pamc;

namespace pamc {
#define SUBCOMMAND(name) extern const Subcommand name;
#include "compiler/driver/subcommands.def"
#undef SUBCOMMAND
}  // namespace pamc

namespace {

const Subcommand* const kSubcommands[] = {
#define SUBCOMMAND(name) &pamc::name,
#include "compiler/driver/subcommands.def"
#undef SUBCOMMAND
};

std::string top_help() {
  std::string out =
      "usage: pamc <command> [options] FILE\n"
      "\n"
      "Compiles Pamela performance models into closed-form symbolic cost models.\n"
      "\n"
      "commands:\n";
  for (const Subcommand* c : kSubcommands) {
    std::string name = c->name;
    out += "  " + name + std::string(std::max<std::size_t>(11, name.size() + 2) - name.size(), ' ') + c->summary + "\n";
  }
  out += "\nRun 'pamc <command> --help' for a command's options; 'pamc --version' for the version.\n";
  return out;
}

po::options_description common_options() {
  po::options_description d("common options");
  d.add_options()
      ("help,h", "show this help")
      ("include,I", po::value<std::vector<std::string>>()->composing()->value_name("DIR"), "add DIR to the import path")
      ("machine", po::value<std::vector<std::string>>()->composing()->value_name("NAME"), "import machines/NAME.pam");
  return d;
}

// The usage line of `pamc NAME --help`: the subcommand's own words for what it needs
// (sub.usage: FILE and any option it cannot run without), then every other option of its
// table in brackets, so no option is left out when one is added: `[--runs K]` with the
// option's value name, `...` when it may be repeated; -I and --machine last.
std::string usage_line(const Subcommand& sub, const po::options_description& options) {
  std::string line = "usage: pamc " + std::string(sub.name) + " " + sub.usage, common;
  const po::options_description common_table = common_options();
  for (const auto& opt : options.options()) {
    if (opt->long_name() == "help") continue;
    // The short form where there is one (-D, -o, -I), else --long.
    std::string flag = opt->canonical_display_name(po::command_line_style::allow_dash_for_short);
    if (flag.rfind("-", 0) != 0) flag = "--" + opt->long_name();
    std::string head = " " + std::string(sub.usage) + " ";
    if (head.find(" --" + opt->long_name() + " ") != std::string::npos ||
        head.find(" " + flag + " ") != std::string::npos)
      continue;  // the subcommand's own words already name it
    const po::value_semantic& value = *opt->semantic();
    std::string item = flag;
    if (value.max_tokens() > 0) item += " " + value.name().substr(0, value.name().find(" (="));  // no default
    item = " [" + item + "]" + (value.is_composing() ? "..." : "");
    (common_table.find_nothrow(opt->long_name(), false) ? common : line) += item;
  }
  return line + common;  // the options every command shares last
}

// `-D N = 1000` (or `-D N= 1000`, `-D N =1000`): a NAME=VALUE option written with spaces
// around '=', which Boost would report as "too many positional options".
void refuse_spaced_assignment(const std::string& command, const std::vector<std::string>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string option = args[i], value;
    std::size_t next = i + 1;
    if (option == "-D" || option == "--define" || option == "--start" || option == "--sweep") {
      if (next >= args.size()) return;
      value = args[next++];
    } else if (option.rfind("-D", 0) == 0 && option.size() > 2 && option[2] != '-') {
      value = option.substr(2);
      option = "-D";
    } else {
      continue;
    }
    bool ends_open = !value.empty() && value.back() == '=';
    bool next_opens = next < args.size() && !args[next].empty() && args[next][0] == '=';
    if (value.find('=') != std::string::npos && !ends_open) continue;
    if (!ends_open && !next_opens) continue;
    std::string typed = value, joined = value;
    for (std::size_t k = next; k < args.size() && k < next + 2; ++k) {
      if (args[k].rfind("-", 0) == 0 && args[k] != "-") break;
      typed += " " + args[k];
      joined += args[k];
      if (joined.back() != '=') break;  // the value is complete
    }
    throw usage_error(command + ": " + option + " " + typed + ": write NAME=VALUE as one word, with no spaces around '=' (" +
                      option + " " + joined + ")");
  }
}

// The subcommand's options, its --help, and its one positional FILE.
CommandLine parse_command(const Subcommand& sub, const std::vector<std::string>& args) {
  const std::string command = sub.name;
  po::options_description options(command + " options");
  options.add(common_options());
  sub.options(options);
  po::options_description all;
  all.add(options);
  all.add_options()("file", po::value<std::vector<std::string>>(), "model file");
  po::positional_options_description pos;
  pos.add("file", -1);  // more than one is refused below, naming them
  CommandLine line;
  line.command = command;
  refuse_spaced_assignment(command, args);
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), line.vm);
    po::notify(line.vm);
  } catch (const po::error& e) {
    throw usage_error(command + ": " + e.what());
  }
  if (line.vm.count("help")) {
    std::cout << usage_line(sub, options) << "\n\n" << options << "\n";
    std::exit(0);
  }
  if (!line.vm.count("file")) {
    if (sub.needs_file) throw usage_error(command + ": no model FILE given (see 'pamc " + command + " --help')");
  } else {
    const auto& files = line.vm["file"].as<std::vector<std::string>>();
    if (files.size() > 1) {
      std::string list;
      for (std::size_t i = 1; i < files.size(); ++i) list += (i > 1 ? "', '" : "") + files[i];
      throw usage_error(command + ": one FILE is read ('" + files[0] + "'); '" + list +
                        "' is not an option or an option's value (see 'pamc " + command + " --help')");
    }
    line.file = files[0];
  }
  return line;
}

int run(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << top_help();
    return 2;
  }
  std::string command = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << top_help();
    return 0;
  }
  if (command == "--version") {
    std::cout << "pamc " << PAMC_VERSION << "\n";
    return 0;
  }
  for (const Subcommand* sub : kSubcommands)
    if (command == sub->name) return sub->run(parse_command(*sub, args));
  throw usage_error("unknown command '" + command + "' (see 'pamc --help')");
}

}  // namespace

namespace {

int run_guarded(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const CompileError& e) {  // a usage error (exit 2), or a stage's error (exit 1)
    return report(e);
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

#if defined(__SANITIZE_ADDRESS__)
#define PAMC_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PAMC_SANITIZED 1
#endif
#endif

// Ends the process without running static destructors: GiNaC's, CLN's and the parser's
// tables hold nothing that must be released, and tearing them down (and registering them)
// was a tenth of a one-shot `pamc eval`. Every output stream is flushed first; files are
// already closed by the command. A sanitizer build exits normally, so LeakSanitizer checks.
[[noreturn]] void finish(int rc) {
#ifdef PAMC_SANITIZED
  std::exit(rc);
#else
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(rc);
#endif
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
    finish(args.rc);
  }
  finish(run_guarded(argc, argv));  // no thread: the default stack
}
