// The parse stage's input guards (internal to compiler/parse/): cheap scans that keep
// hostile input away from both parsers, and the big-stack thread ANTLR runs on.
#pragma once
#include <cstddef>
#include <functional>
#include <string>

#include "compiler/diag/diag.h"
#include "compiler/source/source.h"

namespace pamc::parse {

// The location of a byte offset in `f`.
Loc loc_at_offset(const SourceFile& f, std::size_t offset);

// Strict UTF-8 (no overlong forms, no surrogates, nothing past U+10FFFF) without NUL.
// Returns the offset of the first bad byte (and in `why` what is wrong), or npos.
std::size_t first_bad_byte(const std::string& s, std::string& why);

// Bracket depth scan; comments and strings are skipped as the lexer would.
// Returns the offset of the first bracket past kMaxBracketNesting, or npos.
std::size_t first_too_deep(const std::string& s);

// Both scans: reports InvalidEncoding at the first bad byte or NestingTooDeep at the
// bracket that goes too deep, and returns false; true when the text may be parsed.
bool text_is_parseable(const SourceFile& file, Diagnostics& diags);

// Runs `fn` on a thread with a stack of `bytes` (the parser and the builder recurse once
// per nesting level; the main thread's 8 MB would be tight at the limits). An exception
// `fn` throws is rethrown here.
void run_with_stack(std::size_t bytes, const std::function<void()>& fn);

}  // namespace pamc::parse
