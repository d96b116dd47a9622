// The literal check both parsers share (build_ast.h).
#include "compiler/parse/build_ast.h"

namespace pamc::parse {

void check_number(const std::string& text, Loc at) {
  std::size_t digits = 0, i = 0;
  for (; i < text.size() && text[i] != 'e' && text[i] != 'E'; ++i)
    if (text[i] != '.') ++digits;
  if (digits > static_cast<std::size_t>(kMaxLiteralDigits))
    throw CompileError(at, DiagKind::NumberTooLarge,
                       "numeric literal has more than " + std::to_string(kMaxLiteralDigits) + " digits");
  if (i == text.size()) return;
  ++i;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  while (i + 1 < text.size() && text[i] == '0') ++i;
  // Past its leading zeros, an exponent with more digits than the limit has is beyond it
  // (and could be beyond what stol reads).
  std::size_t exp_digits = text.size() - i;
  if (exp_digits > std::to_string(kMaxLiteralExponent).size() || std::stol(text.substr(i)) > kMaxLiteralExponent)
    throw CompileError(at, DiagKind::NumberTooLarge,
                       "exponent of numeric literal '" + (text.size() > 40 ? text.substr(0, 37) + "..." : text) +
                           "' is out of range (at most " + std::to_string(kMaxLiteralExponent) + " in magnitude)");
}

}  // namespace pamc::parse
