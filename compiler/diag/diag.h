// Diagnostics as data: each has a kind (kinds.def), a location and a message. Stages report
// into a Diagnostics sink; the driver renders them as
//   file:line:col: error: message [Kind]
//     <source line>
//     ^
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "compiler/source/source.h"

namespace pamc {

enum class DiagKind {
#define DIAG(kind, what) kind,
#include "compiler/diag/kinds.def"
#undef DIAG
};

const char* diag_kind_name(DiagKind kind);

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  DiagKind kind = DiagKind::SyntaxError;
  Loc loc;
  std::string message;
  std::string file_name;  // used when loc has no file (e.g. a file that cannot be opened)
};

class Diagnostics {
 public:
  void error(Loc loc, DiagKind kind, std::string message);
  void warning(Loc loc, DiagKind kind, std::string message);
  void note(Loc loc, std::string message);
  // An error about a whole file (cannot open, ...), printed as `file: error: ...`.
  void file_error(const std::string& file, DiagKind kind, std::string message);

  // Keeps a source file alive as long as these diagnostics: a Loc points at its file
  // without owning it, and a failed load leaves no Program to own the files.
  void keep_file(SourceFileP file) { files_.push_back(std::move(file)); }

  bool has_errors() const { return error_count_ > 0; }
  std::size_t error_count() const { return error_count_; }
  const std::vector<Diagnostic>& all() const { return diags_; }

  // Renders every diagnostic, in the order reported. At most `limit` errors are printed;
  // then a line says how many more there were.
  void render(std::ostream& out, std::size_t limit = 50) const;

 private:
  std::vector<Diagnostic> diags_;
  std::vector<SourceFileP> files_;
  std::size_t error_count_ = 0;
};

// Renders one diagnostic (with source line and caret when it has a location).
void render_diagnostic(std::ostream& out, const Diagnostic& d);

// Thrown by later stages (evaluation, lowering) for errors that end the run; the driver
// renders the diagnostic and exits 1.
struct CompileError {
  Diagnostic diag;
};

}  // namespace pamc
