// Loading: the main file, its imports (depth first, each file once, by canonical path),
// then check_modules. An import resolves against the importing file's folder, then each -I
// folder, then the stdlib/ and machines/ folders (data_dirs: PAMC_PATH, then next to the
// running code, installed or in the source tree). `--machine NAME` loads
// NAME.pam (or NAME as given, when it names a .pam file) from the same search path, as if
// the main file imported it first.
#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "compiler/check/check.h"
#include "compiler/parse/parse.h"

namespace pamc {
namespace {

namespace fs = std::filesystem;

// Where stdlib/ and machines/ are, found at run time, never from a path compiled in:
// first each folder of PAMC_PATH (colon-separated; its stdlib/ and machines/ subfolders, or
// the folder itself), then next to the code that is running (the pamc executable, named by
// /proc/self/exe, or the libpamela that embeds it, named by dladdr): ../share/pamc (an installed prefix,
// wherever it was moved; ../../share/pamc from lib/<multiarch>), else the source tree above a build folder (.. or ../..).
struct DataDirs {
  std::vector<fs::path> stdlib, machines;
};

const DataDirs& data_dirs();

// The file this code was loaded from. In a library (libpamela, the Python module) the
// dynamic linker's map names it; in the executable the map's name is empty and dladdr would
// answer argv[0] as typed ("pamc" when run through PATH), which names no file from another
// folder: the kernel's /proc/self/exe names the executable wherever it was started from.
fs::path running_code_file() {
  std::error_code ec;
  Dl_info info;
  link_map* map = nullptr;
  if (dladdr1(reinterpret_cast<void*>(&data_dirs), &info, reinterpret_cast<void**>(&map),
              RTLD_DL_LINKMAP) != 0 &&
      map != nullptr && map->l_name != nullptr && map->l_name[0] != '\0')
    return fs::weakly_canonical(fs::absolute(map->l_name, ec), ec);
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe;
}

const DataDirs& data_dirs() {
  static const DataDirs dirs = [] {
    DataDirs d;
    std::error_code ec;
    auto add_root = [&](const fs::path& root) {
      if (fs::is_directory(root / "stdlib", ec)) d.stdlib.push_back(root / "stdlib");
      if (fs::is_directory(root / "machines", ec)) d.machines.push_back(root / "machines");
    };
    if (const char* env = std::getenv("PAMC_PATH")) {
      std::string all(env);
      for (std::size_t start = 0; start <= all.size();) {
        std::size_t end = all.find(':', start);
        if (end == std::string::npos) end = all.size();
        fs::path dir = all.substr(start, end - start);
        if (!dir.empty()) {
          std::size_t before = d.stdlib.size() + d.machines.size();
          add_root(dir);
          if (d.stdlib.size() + d.machines.size() == before) {  // a folder of .pam files itself
            d.stdlib.push_back(dir);
            d.machines.push_back(dir);
          }
        }
        start = end + 1;
      }
    }
    if (fs::path code = running_code_file(); !code.empty()) {
      fs::path here = code.parent_path();
      // ../../share/pamc: a library in a multiarch folder (/usr/lib/x86_64-linux-gnu).
      for (const char* rel : {"../share/pamc", "../../share/pamc", "..", "../.."}) {
        fs::path root = fs::weakly_canonical(here / rel, ec);
        if (fs::is_directory(root / "stdlib", ec) && fs::is_directory(root / "machines", ec)) {
          add_root(root);
          break;
        }
      }
    }
    return d;
  }();
  return dirs;
}

std::string searched_text(const std::vector<fs::path>& dirs) {
  std::string out;
  for (const fs::path& d : dirs) out += (out.empty() ? "" : ", ") + d.string();
  return out.empty() ? "no stdlib or machines folder found: set PAMC_PATH" : out;
}

class Loader {
 public:
  Loader(const LoadOptions& opts, Diagnostics& diags) : opts_(opts), diags_(diags) {}

  std::vector<ast::Module> modules;
  std::vector<SourceFileP> files;  // every file read, kept for diagnostics (see keep_alive)

  // Loads `file` and its imports; `dir` is the folder its own imports resolve against.
  void load(SourceFileP file, const std::string& key, const fs::path& dir,
            const std::vector<std::pair<std::string, Loc>>& extra = {}) {
    files.push_back(file);
    ast::Module m = parse_module(file, diags_);
    active_.push_back(key);
    active_names_.push_back(file->path);
    state_[key] = kActive;
    std::vector<std::pair<std::string, Loc>> imports = extra;
    for (const ast::Import& imp : m.imports) imports.emplace_back(imp.path, imp.loc);
    for (auto& [path, loc] : imports) load_import(path, loc, dir);
    active_.pop_back();
    active_names_.pop_back();
    state_[key] = kDone;
    modules.push_back(std::move(m));
  }

  // Resolves an import or --machine name; empty when not found.
  std::string resolve(const std::string& path, const fs::path& dir, bool machine) const {
    std::vector<fs::path> dirs;
    if (!machine) dirs.push_back(dir);
    for (auto& d : opts_.include_dirs) dirs.emplace_back(d);
    if (!machine)
      for (const fs::path& d : data_dirs().stdlib) dirs.push_back(d);
    for (const fs::path& d : data_dirs().machines) dirs.push_back(d);
    std::vector<std::string> names{path};
    if (machine && fs::path(path).extension() != ".pam") names.insert(names.begin(), path + ".pam");
    for (auto& name : names) {
      fs::path p(name);
      if (p.is_absolute()) {
        std::error_code ec;
        if (fs::is_regular_file(p, ec)) return p.string();
        continue;
      }
      for (auto& d : dirs) {
        std::error_code ec;
        fs::path candidate = d / p;
        if (fs::is_regular_file(candidate, ec)) return candidate.string();
      }
    }
    return {};
  }

  static std::string canonical(const std::string& path) {
    std::error_code ec;
    fs::path c = fs::weakly_canonical(fs::absolute(path, ec), ec);
    return ec ? path : c.string();
  }

  void load_import(const std::string& path, Loc loc, const fs::path& dir, bool machine = false) {
    std::string found = resolve(path, dir, machine);
    if (found.empty()) {
      std::string what = machine ? "no machine file '" + path + "'" : "cannot find imported file '" + path + "'";
      std::vector<fs::path> data = data_dirs().machines;
      if (!machine) data.insert(data.begin(), data_dirs().stdlib.begin(), data_dirs().stdlib.end());
      what += machine ? " (searched -I folders and " + searched_text(data) + ")"
                      : " (searched the importing file's folder, -I folders and " + searched_text(data) + ")";
      if (loc.valid()) diags_.error(loc, DiagKind::ImportNotFound, what);
      else diags_.file_error(path, DiagKind::ImportNotFound, what);
      return;
    }
    std::string key = canonical(found);
    auto st = state_.find(key);
    if (st != state_.end() && st->second == kDone) return;  // imports are idempotent
    if (st != state_.end() && st->second == kActive) {
      std::string chain;
      std::size_t from = 0;
      while (from < active_.size() && active_[from] != key) ++from;
      for (std::size_t i = from; i < active_.size(); ++i) chain += active_names_[i] + " -> ";
      chain += found;
      if (loc.valid()) diags_.error(loc, DiagKind::ImportCycle, "import cycle: " + chain);
      else diags_.file_error(path, DiagKind::ImportCycle, "import cycle: " + chain);
      return;
    }
    std::string error;
    SourceFileP file = read_source_file(found, error);
    if (!file) {
      if (loc.valid()) diags_.error(loc, DiagKind::IOError, error);
      else diags_.file_error(found, DiagKind::IOError, error);
      return;
    }
    load(file, key, fs::path(found).parent_path());
  }

  void load_machines(const fs::path& dir) {
    for (auto& m : opts_.machines) load_import(m, Loc{}, dir, true);
  }

 private:
  enum State { kActive, kDone };
  const LoadOptions& opts_;
  Diagnostics& diags_;
  std::map<std::string, State> state_;
  std::vector<std::string> active_, active_names_;
};

std::unique_ptr<Program> check_loaded(Loader& loader, Diagnostics& diags) {
  // After a file failed to load or parse, checking the rest would mostly report names that
  // file should have declared: stop here.
  if (diags.has_errors()) return nullptr;
  auto program = check_modules(std::move(loader.modules), diags);
  if (!program || diags.has_errors()) return nullptr;
  return program;
}

std::unique_ptr<Program> finish(Loader& loader, SourceFileP main, Diagnostics& diags) {
  for (const SourceFileP& f : loader.files) diags.keep_file(f);
  auto program = check_loaded(loader, diags);
  if (program) program->main_file = main;
  return program;
}


}  // namespace

std::unique_ptr<Program> load_program(const std::string& path, const LoadOptions& opts, Diagnostics& diags) {
  std::string error;
  SourceFileP file = read_source_file(path, error);
  if (!file) {
    diags.file_error(path, DiagKind::IOError, error);
    return nullptr;
  }
  Loader loader(opts, diags);
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  loader.load_machines(dir);
  loader.load(file, Loader::canonical(path), dir);
  return finish(loader, file, diags);
}

std::unique_ptr<Program> load_program_text(const std::string& name, const std::string& text,
                                           const LoadOptions& opts, Diagnostics& diags) {
  auto file = std::make_shared<SourceFile>(name, text);
  Loader loader(opts, diags);
  loader.load_machines(".");
  loader.load(file, "<text>:" + name, ".");
  return finish(loader, file, diags);
}

}  // namespace pamc
