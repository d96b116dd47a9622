#include "compiler/diag/diag.h"

namespace pamc {

const char* diag_kind_name(DiagKind kind) {
  switch (kind) {
#define DIAG(k, what) \
  case DiagKind::k:   \
    return #k;
#include "compiler/diag/kinds.def"
#undef DIAG
  }
  return "Unknown";
}

bool is_value_error(DiagKind kind) {
  switch (kind) {
    case DiagKind::EvaluationError:
    case DiagKind::DivisionByZero:
    case DiagKind::DomainError:
    case DiagKind::ValueTooLarge:
    case DiagKind::NegativeTime:
    case DiagKind::InvalidMultiplicity:
    case DiagKind::InvalidCondition:
    case DiagKind::NonIntegerBound:
    case DiagKind::EmptyRange:
    case DiagKind::VectorValue:
    case DiagKind::ParameterOutOfBounds:
      return true;
    default:
      return false;
  }
}

void Diagnostics::error(Loc loc, DiagKind kind, std::string message) {
  diags_.push_back({Severity::Error, kind, loc, std::move(message), {}});
  ++error_count_;
}

void Diagnostics::warning(Loc loc, DiagKind kind, std::string message) {
  diags_.push_back({Severity::Warning, kind, loc, std::move(message), {}});
}

void Diagnostics::note(Loc loc, std::string message) {
  diags_.push_back({Severity::Note, DiagKind::Note, loc, std::move(message), {}});
}

void Diagnostics::add(Diagnostic d) {
  if (d.severity == Severity::Error) ++error_count_;
  diags_.push_back(std::move(d));
}

const char* CompileError::what() const noexcept {
  if (diag.loc.valid())
    what_ = diag.loc.file->path + ":" + std::to_string(diag.loc.line) + ":" + std::to_string(diag.loc.col) + ": " +
            diag.message;
  else if (!diag.file_name.empty())
    what_ = diag.file_name + ": " + diag.message;
  else
    what_ = diag.message;
  return what_.c_str();
}

CompileError file_error(const std::string& file, DiagKind kind, std::string message) {
  return CompileError(Diagnostic{Severity::Error, kind, Loc{}, std::move(message), file});
}

CompileError usage_error(std::string message) {
  return CompileError(Diagnostic{Severity::Error, DiagKind::UsageError, Loc{}, std::move(message), {}});
}

void Diagnostics::file_error(const std::string& file, DiagKind kind, std::string message) {
  diags_.push_back({Severity::Error, kind, Loc{}, std::move(message), file});
  ++error_count_;
}

// Long lines (a 1 MB line, say) are cut around the column so the caret stays readable.
static void render_source_line(std::ostream& out, const Loc& loc) {
  std::string_view line = loc.file->line_text(loc.line);
  std::size_t col = loc.col > 0 ? loc.col - 1 : 0;
  if (col > line.size()) col = line.size();
  constexpr std::size_t kWindow = 100;
  std::size_t begin = col > kWindow / 2 ? col - kWindow / 2 : 0;
  std::size_t end = std::min(line.size(), begin + kWindow);
  std::string shown(line.substr(begin, end - begin));
  for (char& c : shown)
    if (c == '\t') c = ' ';
    else if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  std::string prefix = begin > 0 ? "..." : "";
  out << "  " << prefix << shown << (end < line.size() ? "..." : "") << "\n";
  out << "  " << std::string(prefix.size() + (col - begin), ' ') << "^\n";
}

void render_diagnostic(std::ostream& out, const Diagnostic& d) {
  if (d.kind == DiagKind::UsageError) {  // SPEC 4: a usage error is one line, exit 2
    out << "pamc: " << d.message << "\n";
    return;
  }
  const char* sev = d.severity == Severity::Error ? "error" : d.severity == Severity::Warning ? "warning" : "note";
  if (d.loc.valid()) {
    out << d.loc.file->path << ":" << d.loc.line << ":" << d.loc.col << ": " << sev << ": " << d.message;
  } else if (!d.file_name.empty()) {
    out << d.file_name << ": " << sev << ": " << d.message;
  } else {
    out << "pamc: " << sev << ": " << d.message;
  }
  if (d.severity != Severity::Note) out << " [" << diag_kind_name(d.kind) << "]";
  out << "\n";
  if (d.loc.valid()) render_source_line(out, d.loc);
}

void Diagnostics::render(std::ostream& out, std::size_t limit) const {
  std::size_t errors = 0;
  for (const Diagnostic& d : diags_) {
    if (d.severity == Severity::Error && ++errors > limit) continue;
    if (errors > limit) continue;
    render_diagnostic(out, d);
  }
  if (errors > limit) out << "pamc: " << (errors - limit) << " more errors not shown\n";
}

}  // namespace pamc
