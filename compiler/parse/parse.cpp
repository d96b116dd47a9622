// The parse stage. Order of work for one file:
//   1. check_encoding: UTF-8, no NUL (before anything looks at the text);
//   2. check_brackets: bracket nesting <= kMaxBracketNesting (a byte scan, no recursion);
//   3. FastParser (hand-written, same grammar, same AST) tries the file; it gives up on
//      anything it is not sure of (any syntax error, deep nesting, a rejected literal);
//   4. only then, on a thread with a big stack: ANTLR lexes and parses; a listener turns ANTLR's
//      syntax errors into SyntaxError diagnostics; Builder walks the parse tree and makes
//      the AST, tracking each node's height so no AST is deeper than kMaxAstDepth.
#include "compiler/parse/parse.h"

#include <pthread.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "PamelaLexer.h"
#include "PamelaParser.h"
#include "antlr4-runtime.h"

namespace pamc {
namespace {

using pamela_grammar::PamelaLexer;
using pamela_grammar::PamelaParser;
using ast::Kind;
using ast::NodeP;
using ast::Op;

Loc loc_at_offset(const SourceFile& f, std::size_t offset) {
  auto it = std::upper_bound(f.line_starts.begin(), f.line_starts.end(), offset);
  std::size_t line = static_cast<std::size_t>(it - f.line_starts.begin());
  return Loc{&f, static_cast<std::uint32_t>(line),
             static_cast<std::uint32_t>(offset - f.line_starts[line - 1] + 1)};
}

// Strict UTF-8 (no overlong forms, no surrogates, nothing past U+10FFFF) without NUL.
// Returns the offset of the first bad byte, or npos.
std::size_t first_bad_byte(const std::string& s, std::string& why) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  std::size_t n = s.size(), i = 0;
  while (i < n) {
    unsigned c = p[i];
    if (c == 0) {
      why = "NUL byte";
      return i;
    }
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      why = "invalid UTF-8 byte";
      return i;
    }
    for (std::size_t k = 1; k < len; ++k) {
      if (i + k >= n) {
        why = "truncated UTF-8 sequence";
        return i;
      }
      unsigned b = p[i + k];
      if (b < (k == 1 ? lo : 0x80u) || b > (k == 1 ? hi : 0xBFu)) {
        why = "invalid UTF-8 sequence";
        return i;
      }
    }
    i += len;
  }
  return std::string::npos;
}

// Bracket depth scan; comments and strings are skipped as the lexer would.
// Returns the offset of the first bracket past the limit, or npos.
std::size_t first_too_deep(const std::string& s) {
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '%') {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (c == '"') {
      std::size_t j = i + 1;
      while (j < s.size() && s[j] != '"' && s[j] != '\n' && s[j] != '\r') ++j;
      if (j < s.size() && s[j] == '"') i = j;
    } else if (c == '(' || c == '[' || c == '{') {
      if (++depth > kMaxBracketNesting) return i;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth > 0) --depth;
    }
  }
  return std::string::npos;
}

// Runs `fn` on a thread with a stack of `bytes` (the parser and the builder recurse once
// per nesting level; the main thread's 8 MB would be tight at the limits).
void run_with_stack(std::size_t bytes, const std::function<void()>& fn) {
  pthread_attr_t attr;
  pthread_t thread;
  bool ok = pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, bytes) == 0;
  struct Ctx {
    const std::function<void()>* fn;
    std::exception_ptr error;
  } ctx{&fn, nullptr};
  auto trampoline = [](void* arg) -> void* {
    auto* c = static_cast<Ctx*>(arg);
    try {
      (*c->fn)();
    } catch (...) {
      c->error = std::current_exception();
    }
    return nullptr;
  };
  if (ok && pthread_create(&thread, &attr, trampoline, &ctx) == 0) {
    pthread_join(thread, nullptr);
    pthread_attr_destroy(&attr);
    if (ctx.error) std::rethrow_exception(ctx.error);
    return;
  }
  if (ok) pthread_attr_destroy(&attr);
  fn();  // no thread: run here (the limits still hold, with less margin)
}

// Token positions: ANTLR counts code points, diagnostics count bytes.
class Positions {
 public:
  explicit Positions(const SourceFile& f) : file_(f) {
    bool ascii = true;
    for (unsigned char c : f.text)
      if (c >= 0x80) {
        ascii = false;
        break;
      }
    if (ascii) return;
    for (std::size_t i = 0; i < f.text.size(); ++i)
      if ((static_cast<unsigned char>(f.text[i]) & 0xC0) != 0x80) cp_to_byte_.push_back(i);
    cp_to_byte_.push_back(f.text.size());
  }
  Loc of(const antlr4::Token* t) const {
    std::size_t cp = t->getStartIndex();
    std::size_t byte = cp_to_byte_.empty() ? cp : cp_to_byte_[std::min(cp, cp_to_byte_.size() - 1)];
    if (t->getType() == antlr4::Token::EOF) byte = file_.text.size();
    return loc_at_offset(file_, std::min(byte, file_.text.size()));
  }

 private:
  const SourceFile& file_;
  std::vector<std::size_t> cp_to_byte_;
};

struct TooManyErrors {};

// Replaces ANTLR's console listener: one SyntaxError per line at most, at most 10 in all.
class SyntaxErrors : public antlr4::BaseErrorListener {
 public:
  SyntaxErrors(const Positions& pos, Diagnostics& diags) : pos_(pos), diags_(diags) {}

  void syntaxError(antlr4::Recognizer* recognizer, antlr4::Token* tok, size_t, size_t,
                   const std::string& msg, std::exception_ptr) override {
    if (!tok) return;  // lexer errors cannot happen: ERRCHAR takes any character
    Loc loc = pos_.of(tok);
    ++count_;
    if (reported_ > 0 && loc.line == last_line_) return;
    last_line_ = loc.line;
    ++reported_;
    diags_.error(loc, DiagKind::SyntaxError, message(recognizer, tok, msg));
    if (const antlr4::Token* open = unclosed_opener(recognizer, tok))
      diags_.note(pos_.of(open), "the '" + open->getText() + "' opened here is not closed");
    if (reported_ >= 10) throw TooManyErrors{};
  }
  std::size_t count() const { return count_; }

 private:
  static std::string describe(const antlr4::Token* tok) {
    if (tok->getType() == antlr4::Token::EOF) return "end of file";
    std::string text = tok->getText();
    if (tok->getType() == PamelaLexer::ERRCHAR) {
      unsigned char c = text.empty() ? 0 : static_cast<unsigned char>(text[0]);
      if (c < 0x20 || c >= 0x7f) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "unexpected character (byte 0x%02X)", c);
        return buf;
      }
      return "unexpected character '" + text + "'";
    }
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    return "'" + text + "'";
  }
  // The innermost bracket still open before `tok` whose closer the parser expects there: a
  // missing '}' shows at the end of the file (or at the next declaration), far from the
  // '{' that lacks it, so the note points there.
  static const antlr4::Token* unclosed_opener(antlr4::Recognizer* recognizer, const antlr4::Token* tok) {
    auto* parser = dynamic_cast<antlr4::Parser*>(recognizer);
    if (!parser || !parser->getTokenStream()) return nullptr;
    antlr4::misc::IntervalSet expected;
    try {
      expected = parser->getExpectedTokens();
    } catch (...) {
      return nullptr;
    }
    std::string closers;  // of "})]" the ones expected here
    for (std::size_t t : expected.toList()) {
      std::string lit = std::string(parser->getVocabulary().getLiteralName(t));
      if (lit == "'}'" || lit == "')'" || lit == "']'") closers += lit[1];
    }
    if (closers.empty()) return nullptr;
    auto opener_of = [](char c) { return c == '}' ? '{' : c == ')' ? '(' : '['; };
    std::vector<const antlr4::Token*> open;
    antlr4::TokenStream* stream = parser->getTokenStream();
    for (std::size_t i = 0; i < tok->getTokenIndex(); ++i) {
      const antlr4::Token* t = stream->get(i);
      const std::string text = t->getText();
      if (text == "{" || text == "(" || text == "[") {
        open.push_back(t);
      } else if (text == "}" || text == ")" || text == "]") {
        for (std::size_t k = open.size(); k-- > 0;)
          if (open[k]->getText()[0] == opener_of(text[0])) {
            open.resize(k);
            break;
          }
      }
    }
    for (std::size_t k = open.size(); k-- > 0;)
      for (char c : closers)
        if (open[k]->getText()[0] == opener_of(c)) return open[k];
    return nullptr;
  }

  static std::string token_name(const antlr4::dfa::Vocabulary& v, std::size_t t) {
    if (t == antlr4::Token::EOF) return "end of file";
    switch (t) {
      case PamelaLexer::ID: return "a name";
      case PamelaLexer::NUMBER: return "a number";
      case PamelaLexer::STRING: return "a string";
      default: return v.getDisplayName(t);
    }
  }
  static std::string message(antlr4::Recognizer* recognizer, const antlr4::Token* tok,
                             const std::string& antlr_msg) {
    std::string what = describe(tok);
    std::string m = what.rfind("unexpected", 0) == 0 ? what : "unexpected " + what;
    auto* parser = dynamic_cast<antlr4::Parser*>(recognizer);
    if (!parser) return m;
    antlr4::misc::IntervalSet expected;
    try {
      expected = parser->getExpectedTokens();
    } catch (...) {
      return m;
    }
    std::vector<std::string> names;
    for (std::size_t t : expected.toList()) names.push_back(token_name(parser->getVocabulary(), t));
    if (names.empty() || names.size() > 6) {
      if (antlr_msg.rfind("no viable alternative", 0) == 0) return m + " here";
      return m;
    }
    m += "; expected ";
    for (std::size_t i = 0; i < names.size(); ++i)
      m += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    return m;
  }

  const Positions& pos_;
  Diagnostics& diags_;
  std::size_t count_ = 0, reported_ = 0;
  std::uint32_t last_line_ = 0;
};

// Thrown by the builder when an AST would be too deep or a literal is out of range.
struct BuildError {
  Loc loc;
  DiagKind kind;
  std::string message;
};

struct Built {
  NodeP node;
  int height = 1;
};

// A left-leaning chain of one associative operator (a + b + c, a * b * c, a and b and c,
// a or b or c, p ; q ; r, p || q || r) becomes one node with every operand as a kid, so a
// flat sum of 4,000 terms is 2 levels deep, not 4,000, and no later stage recurses once per
// term. Only a chain as written is joined: (a + b) + c keeps its brackets' node. - / ^ mod
// div and the comparisons stay binary. Both parsers build through this, so they agree.
static bool associative(Kind kind, ast::Op op) {
  if (kind == Kind::Seq || kind == Kind::Par) return true;
  return kind == Kind::Binary && (op == ast::Op::Add || op == ast::Op::Mul || op == ast::Op::And || op == ast::Op::Or);
}

// The operands of the chain being read, in order; `make` builds a node from kids (checking
// the height limit), `close` ends the chain into the accumulated operand.
template <class Make>
class Chain {
 public:
  explicit Chain(Make make) : make_(make) {}
  // acc = acc <op> rhs, joining an open chain of the same operator.
  void step(Built& acc, Kind kind, ast::Op op, Loc at, Built rhs) {
    if (!kids_.empty() && kind == kind_ && op == op_) {
      kids_.push_back(std::move(rhs));
      return;
    }
    close(acc);
    if (associative(kind, op)) {
      kids_.push_back(std::move(acc));
      kids_.push_back(std::move(rhs));
      kind_ = kind;
      op_ = op;
      at_ = at;
      return;
    }
    std::vector<Built> two;
    two.reserve(2);
    two.push_back(std::move(acc));
    two.push_back(std::move(rhs));
    acc = make_(kind, at, std::move(two), op);
  }
  void close(Built& acc) {
    if (kids_.empty()) return;
    acc = make_(kind_, at_, std::move(kids_), op_);
    kids_.clear();
  }

 private:
  Make make_;
  std::vector<Built> kids_;
  Kind kind_ = Kind::Binary;
  ast::Op op_ = ast::Op::None;
  Loc at_;
};

// Walks the parse tree (contexts are known by their generated classes) and makes the AST.
// Left-nested operator chains are walked in a loop, not by recursion.
class Builder {
 public:
  explicit Builder(const Positions& pos) : pos_(pos) {}

  ast::Module module(PamelaParser::ModuleContext* m, SourceFileP file) {
    ast::Module out;
    out.file = file;
    for (auto* item : m->item()) {
      if (auto* imp = dynamic_cast<PamelaParser::ImportItemContext*>(item)) {
        std::string s = imp->STRING()->getText();
        out.imports.push_back({s.substr(1, s.size() - 2), loc(imp->getStart())});
      } else if (auto* p = dynamic_cast<PamelaParser::ParamDeclContext*>(item)) {
        ast::Decl d = decl_head(p->declType(), p->name, p->formals());
        d.is_parameter = true;
        if (p->dflt) d.body = arith(p->dflt).node;
        for (auto* b : p->bound()) {
          ast::Bound bound;
          bound.op = bound_op(b->op->getText());
          bound.value = arith(b->value).node;
          d.bounds.push_back(std::move(bound));
        }
        out.decls.push_back(std::move(d));
      } else if (auto* e = dynamic_cast<PamelaParser::EqDeclContext*>(item)) {
        ast::Decl d = decl_head(e->declType(), e->name, e->formals());
        d.body = expr(e->body).node;
        out.decls.push_back(std::move(d));
      } else if (auto* r = dynamic_cast<PamelaParser::RegionItemContext*>(item)) {
        // region NAME { numeric COUNTER = expr ... }: one declaration per counter
        for (auto* c : r->counter()) {
          ast::Decl d;
          d.type = ast::Type::Numeric;
          d.loc = loc(c->getStart());
          d.region = r->name->getText();
          d.region_loc = loc(r->name);
          d.name = d.region + "." + c->name->getText();
          d.name_loc = loc(c->name);
          d.body = expr(c->body).node;
          out.decls.push_back(std::move(d));
        }
      }
    }
    return out;
  }

 private:
  Loc loc(const antlr4::Token* t) const { return pos_.of(t); }

  static Op bound_op(const std::string& s) {
    if (s == ">=") return Op::Ge;
    if (s == ">") return Op::Gt;
    if (s == "<=") return Op::Le;
    return Op::Lt;
  }

  ast::Decl decl_head(PamelaParser::DeclTypeContext* type, antlr4::Token* name,
                      PamelaParser::FormalsContext* formals) {
    ast::Decl d;
    d.type = type->NUMERIC() ? ast::Type::Numeric : type->PROCESS() ? ast::Type::Process : ast::Type::Resource;
    d.loc = loc(type->getStart());
    d.name = name->getText();
    d.name_loc = loc(name);
    if (formals)
      for (auto* id : formals->ID()) {
        d.formals.push_back(id->getText());
        d.formal_locs.push_back(loc(id->getSymbol()));
      }
    return d;
  }

  Built node(Kind kind, Loc at, std::vector<Built> kids, Op op = Op::None, std::string name = {}) {
    int h = 0;
    std::vector<NodeP> nodes;
    nodes.reserve(kids.size());
    for (auto& k : kids) {
      h = std::max(h, k.height);
      nodes.push_back(std::move(k.node));
    }
    if (h + 1 > kMaxAstDepth)
      throw BuildError{at, DiagKind::NestingTooDeep,
                       "expression nested too deeply (more than " + std::to_string(kMaxAstDepth) +
                           " levels of operators and brackets)"};
    return {ast::make(kind, at, std::move(nodes), op, std::move(name)), h + 1};
  }

  static Op binary_op(const std::string& s) {
    static const std::pair<const char*, Op> table[] = {
        {"+", Op::Add}, {"-", Op::Sub}, {"*", Op::Mul}, {"/", Op::Div}, {"^", Op::Pow},
        {"mod", Op::Mod}, {"div", Op::IDiv}, {"==", Op::Eq}, {"!=", Op::Ne}, {"<", Op::Lt},
        {"<=", Op::Le}, {">", Op::Gt}, {">=", Op::Ge}, {"and", Op::And}, {"or", Op::Or}};
    for (auto& [text, op] : table)
      if (s == text) return op;
    return Op::None;
  }

  // A binary context's operator token: children are [lhs, op, rhs].
  static antlr4::Token* op_token(antlr4::ParserRuleContext* ctx) {
    return static_cast<antlr4::tree::TerminalNode*>(ctx->children[1])->getSymbol();
  }

  // acc = acc <op_tok> rhs, joining associative chains (Chain).
  template <class C>
  void binary(C& chain, Built& acc, antlr4::Token* op_tok, Built rhs) {
    std::string s = op_tok->getText();
    Kind kind = s == ";" ? Kind::Seq : s == "||" ? Kind::Par : Kind::Binary;
    chain.step(acc, kind, kind == Kind::Binary ? binary_op(s) : Op::None, loc(op_tok), std::move(rhs));
  }
  auto chain() {
    return Chain([this](Kind kind, Loc at, std::vector<Built> kids, Op op) {
      return node(kind, at, std::move(kids), op);
    });
  }

  Built expr(PamelaParser::ExprContext* ctx) {
    // Walk down the left spine of a chain such as a + b + c; build bottom-up.
    std::vector<PamelaParser::ExprContext*> spine;
    PamelaParser::ExprContext* leftmost = ctx;
    while (leftmost->children.size() == 3 && !dynamic_cast<PamelaParser::TermExprContext*>(leftmost)) {
      spine.push_back(leftmost);
      leftmost = static_cast<PamelaParser::ExprContext*>(leftmost->children[0]);
    }
    Built acc;
    if (auto* t = dynamic_cast<PamelaParser::TermExprContext*>(leftmost)) {
      acc = term(t->term());
    } else if (auto* n = dynamic_cast<PamelaParser::NotExprContext*>(leftmost)) {
      acc = node(Kind::Unary, loc(n->NOT()->getSymbol()), {expr(n->expr())}, Op::Not);
    } else {
      throw BuildError{loc(leftmost->getStart()), DiagKind::SyntaxError, "malformed expression"};
    }
    auto ch = chain();
    for (auto it = spine.rbegin(); it != spine.rend(); ++it) {
      auto* rhs = static_cast<PamelaParser::ExprContext*>((*it)->children[2]);
      binary(ch, acc, op_token(*it), expr(rhs));
    }
    ch.close(acc);
    return acc;
  }

  Built arith(PamelaParser::ArithContext* ctx) {
    std::vector<PamelaParser::ArithContext*> spine;
    PamelaParser::ArithContext* leftmost = ctx;
    while (!dynamic_cast<PamelaParser::ArithTermContext*>(leftmost)) {
      spine.push_back(leftmost);
      leftmost = static_cast<PamelaParser::ArithContext*>(leftmost->children[0]);
    }
    Built acc = term(static_cast<PamelaParser::ArithTermContext*>(leftmost)->term());
    auto ch = chain();
    for (auto it = spine.rbegin(); it != spine.rend(); ++it) {
      auto* rhs = static_cast<PamelaParser::ArithContext*>((*it)->children[2]);
      binary(ch, acc, op_token(*it), arith(rhs));
    }
    ch.close(acc);
    return acc;
  }

  // Reduction bodies drop their braces: `sum (i = 1, N) { e }` keeps e (the printer
  // always writes the braces back).
  static Built strip_group(Built b) {
    if (b.node->kind == Kind::Group) return {b.node->kids[0], b.height - 1};
    return b;
  }

  Built term(PamelaParser::TermContext* ctx) {
    if (auto* p = dynamic_cast<PamelaParser::PowTermContext*>(ctx)) {
      Built base = primary(p->primary());
      if (!p->term()) return base;
      return node(Kind::Binary, loc(op_token(p)), {std::move(base), term(p->term())}, Op::Pow);
    }
    if (auto* n = dynamic_cast<PamelaParser::NegTermContext*>(ctx))
      return node(Kind::Unary, loc(n->getStart()), {term(n->term())}, Op::Neg);
    if (auto* l = dynamic_cast<PamelaParser::LoopTermContext*>(ctx)) {
      Kind k = l->kw->getType() == PamelaLexer::SEQ ? Kind::SeqLoop : Kind::ParLoop;
      return node(k, loc(l->kw), {expr(l->lb), expr(l->ub), term(l->term())}, Op::None, l->index->getText());
    }
    if (auto* r = dynamic_cast<PamelaParser::ReduceTermContext*>(ctx)) {
      Op op = r->kw->getType() == PamelaLexer::SUM ? Op::Sum : r->kw->getType() == PamelaLexer::MAX ? Op::Max : Op::Min;
      return node(Kind::Reduce, loc(r->kw), {expr(r->lb), expr(r->ub), strip_group(term(r->term()))}, op,
                  r->index->getText());
    }
    if (auto* i = dynamic_cast<PamelaParser::IfTermContext*>(ctx)) {
      Loc at = loc(i->getStart());
      if (i->other) return node(Kind::IfExpr, at, {expr(i->cond), term(i->then), term(i->other)});
      return node(Kind::IfProc, at, {expr(i->cond), term(i->then)});
    }
    throw BuildError{loc(ctx->getStart()), DiagKind::SyntaxError, "malformed term"};
  }

  std::vector<Built> args(PamelaParser::ArgsContext* a) {
    std::vector<Built> out;
    if (a)
      for (auto* e : a->expr()) out.push_back(expr(e));
    return out;
  }

  Built primary(PamelaParser::PrimaryContext* ctx) {
    if (auto* n = dynamic_cast<PamelaParser::NumberPrimContext*>(ctx)) {
      antlr4::Token* t = n->NUMBER()->getSymbol();
      std::string text = t->getText();
      check_number(text, loc(t));
      return {ast::make_number(loc(t), text), 1};
    }
    if (auto* n = dynamic_cast<PamelaParser::NamePrimContext*>(ctx))
      return node(Kind::Name, loc(n->getStart()), {}, Op::None, n->ID()->getText());
    if (auto* c = dynamic_cast<PamelaParser::CallPrimContext*>(ctx))
      return node(Kind::Call, loc(c->fn), args(c->args()), Op::None, c->fn->getText());
    if (auto* d = dynamic_cast<PamelaParser::DelayPrimContext*>(ctx))
      return node(Kind::Delay, loc(d->getStart()), args(d->args()));
    if (auto* u = dynamic_cast<PamelaParser::UsePrimContext*>(ctx))
      return node(Kind::Use, loc(u->getStart()), args(u->args()));
    if (auto* p = dynamic_cast<PamelaParser::ParenPrimContext*>(ctx)) return expr(p->expr());
    if (auto* g = dynamic_cast<PamelaParser::GroupPrimContext*>(ctx))
      return node(Kind::Group, loc(g->getStart()), {expr(g->expr())});
    if (auto* v = dynamic_cast<PamelaParser::VectorPrimContext*>(ctx))
      return node(Kind::Vector, loc(v->getStart()), args(v->args()));
    throw BuildError{loc(ctx->getStart()), DiagKind::SyntaxError, "malformed expression"};
  }

 public:
  // The value is read exactly by a later stage; here only its size is bounded.
  static void check_number(const std::string& text, Loc at) {
    std::size_t digits = 0, i = 0;
    for (; i < text.size() && text[i] != 'e' && text[i] != 'E'; ++i)
      if (text[i] != '.') ++digits;
    if (digits > 10000)
      throw BuildError{at, DiagKind::NumberTooLarge, "numeric literal has more than 10000 digits"};
    if (i == text.size()) return;
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    while (i + 1 < text.size() && text[i] == '0') ++i;
    std::size_t exp_digits = text.size() - i;
    if (exp_digits > 5 || std::stol(text.substr(i)) > 10000)
      throw BuildError{at, DiagKind::NumberTooLarge,
                       "exponent of numeric literal '" + (text.size() > 40 ? text.substr(0, 37) + "..." : text) +
                           "' is out of range (at most 10000 in magnitude)"};
  }

 private:
  const Positions& pos_;
};

// The fast path: a hand-written lexer and recursive-descent parser for the same grammar
// (grammar/Pamela.g4) that builds the same AST as Builder (same nodes, names, locations and
// height limit) without ANTLR's token objects, parse tree and adaptive prediction, which
// cost ~250,000 instructions per line. It accepts only what it is sure of: on any lexical
// or syntax error, a too-deep nesting, or a literal Builder would reject it gives up
// (returns false) and parse_module runs the ANTLR path, which produces the diagnostics. So
// for valid input the AST is the one ANTLR would give, and for invalid input the output
// is ANTLR's, unchanged. Precedence follows ANTLR's rewriting of the left-recursive rules:
// expr alternatives Mul 8, Add 7, Cmp 6, Not (prefix) 5, And 4, Or 3, Seq 2, Par 1, all
// left-associative (operand of `not` parsed at 5, right operands at prec + 1); arith: Mul 2,
// Add 1.
class FastParser {
 public:
  FastParser(const SourceFile& f) : file_(f), text_(f.text) {}

  bool parse(ast::Module& out, SourceFileP file) {
    if (!lex()) return false;
    try {
      out.file = file;
      while (peek() != T::Eof) {
        if (peek() == T::Import) {
          Loc at = loc(pos_);
          ++pos_;
          if (peek() != T::String) return false;
          std::string s = tok_text(pos_++);
          out.imports.push_back({s.substr(1, s.size() - 2), at});
          continue;
        }
        if (peek() == T::Region) {  // region NAME '{' (numeric ID '=' expr)+ '}'
          ++pos_;
          if (peek() != T::Id) return false;
          std::string region = tok_text(pos_);
          Loc region_loc = loc(pos_);
          ++pos_;
          if (!eat(T::LBrace) || peek() != T::Numeric) return false;
          while (peek() == T::Numeric) {
            ast::Decl d;
            d.loc = loc(pos_);
            ++pos_;
            if (peek() != T::Id) return false;
            d.region = region;
            d.region_loc = region_loc;
            d.name = region + "." + tok_text(pos_);
            d.name_loc = loc(pos_);
            ++pos_;
            if (!eat(T::Assign)) return false;
            d.body = expr(0).node;
            out.decls.push_back(std::move(d));
          }
          if (!eat(T::RBrace)) return false;
          continue;
        }
        if (peek() != T::Numeric && peek() != T::Process && peek() != T::Resource) return false;
        ast::Decl d;
        d.type = peek() == T::Numeric ? ast::Type::Numeric : peek() == T::Process ? ast::Type::Process : ast::Type::Resource;
        d.loc = loc(pos_);
        ++pos_;
        bool param = false;
        if (peek() == T::Parameter) {
          param = true;
          ++pos_;
        }
        if (peek() != T::Id) return false;
        d.name = tok_text(pos_);
        d.name_loc = loc(pos_);
        ++pos_;
        if (peek() == T::LParen) {  // formals : '(' (ID (',' ID)*)? ')'
          ++pos_;
          if (peek() != T::RParen) {
            for (;;) {
              if (peek() != T::Id) return false;
              d.formals.push_back(tok_text(pos_));
              d.formal_locs.push_back(loc(pos_));
              ++pos_;
              if (peek() == T::Comma) {
                ++pos_;
                continue;
              }
              break;
            }
          }
          if (!eat(T::RParen)) return false;
        }
        if (param) {
          d.is_parameter = true;
          if (peek() == T::Assign) {
            ++pos_;
            d.body = arith(0).node;
          }
          while (peek() == T::Ge || peek() == T::Gt || peek() == T::Le || peek() == T::Lt) {
            ast::Bound b;
            T t = peek();
            b.op = t == T::Ge ? Op::Ge : t == T::Gt ? Op::Gt : t == T::Le ? Op::Le : Op::Lt;
            ++pos_;
            b.value = arith(0).node;
            d.bounds.push_back(std::move(b));
          }
        } else {
          if (!eat(T::Assign)) return false;
          d.body = expr(0).node;
        }
        out.decls.push_back(std::move(d));
      }
    } catch (GiveUp&) {
      return false;
    } catch (BuildError&) {
      return false;
    }
    return true;
  }

 private:
  enum class T : unsigned char {
    Eof, Id, Number, String,
    Import, Numeric, Process, Resource, Parameter, Region, Seq, Par, If, Else, Delay, Use, Sum, Max, Min,
    Mod, Div, And, Or, Not,
    LParen, RParen, LBrace, RBrace, LBrack, RBrack, Comma, Assign,
    Plus, Minus, Star, Slash, Caret, Semi, ParOp, Eq, Ne, Lt, Le, Gt, Ge,
  };
  struct Tok {
    T type;
    std::uint32_t start, len;
  };
  struct GiveUp {};
  // Deeper than this (calls of expr/arith/term, as ANTLR's guard counts frames) is left
  // to ANTLR, whose limit is 5000.
  static constexpr int kMaxDepth = 2000;

  static bool id_start(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
  static bool id_char(unsigned char c) { return id_start(c) || (c >= '0' && c <= '9'); }
  static bool digit(unsigned char c) { return c >= '0' && c <= '9'; }

  static T keyword(const char* p, std::size_t n) {
    switch (n) {
      case 2:
        if (!std::memcmp(p, "if", 2)) return T::If;
        if (!std::memcmp(p, "or", 2)) return T::Or;
        break;
      case 3:
        if (!std::memcmp(p, "seq", 3)) return T::Seq;
        if (!std::memcmp(p, "par", 3)) return T::Par;
        if (!std::memcmp(p, "use", 3)) return T::Use;
        if (!std::memcmp(p, "sum", 3)) return T::Sum;
        if (!std::memcmp(p, "max", 3)) return T::Max;
        if (!std::memcmp(p, "min", 3)) return T::Min;
        if (!std::memcmp(p, "mod", 3)) return T::Mod;
        if (!std::memcmp(p, "div", 3)) return T::Div;
        if (!std::memcmp(p, "and", 3)) return T::And;
        if (!std::memcmp(p, "not", 3)) return T::Not;
        break;
      case 4:
        if (!std::memcmp(p, "else", 4)) return T::Else;
        break;
      case 5:
        if (!std::memcmp(p, "delay", 5)) return T::Delay;
        break;
      case 6:
        if (!std::memcmp(p, "import", 6)) return T::Import;
        if (!std::memcmp(p, "region", 6)) return T::Region;
        break;
      case 7:
        if (!std::memcmp(p, "numeric", 7)) return T::Numeric;
        if (!std::memcmp(p, "process", 7)) return T::Process;
        break;
      case 8:
        if (!std::memcmp(p, "resource", 8)) return T::Resource;
        break;
      case 9:
        if (!std::memcmp(p, "parameter", 9)) return T::Parameter;
        break;
    }
    return T::Id;
  }

  // The lexer rules of Pamela.g4 (longest match, keywords before ID). Anything that would
  // be an ERRCHAR token (including every non-ASCII character outside comments and strings)
  // gives up.
  bool lex() {
    const char* s = text_.data();
    std::size_t n = text_.size(), i = 0;
    if (n >= 0xFFFFFFFFu) return false;
    toks_.reserve(n / 4 + 16);
    while (i < n) {
      unsigned char c = s[i];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f') {
        ++i;
        continue;
      }
      if (c == '%') {
        while (i < n && s[i] != '\r' && s[i] != '\n') ++i;
        continue;
      }
      std::size_t b = i;
      T t;
      if (id_start(c)) {
        while (i < n && id_char(s[i])) ++i;
        t = keyword(s + b, i - b);
      } else if (digit(c) || (c == '.' && i + 1 < n && digit(s[i + 1]))) {
        // NUMBER : DIGITS ('.' DIGITS?)? EXPONENT? | '.' DIGITS EXPONENT?
        if (c == '.') {
          ++i;
          while (i < n && digit(s[i])) ++i;
        } else {
          while (i < n && digit(s[i])) ++i;
          if (i < n && s[i] == '.') {
            ++i;
            while (i < n && digit(s[i])) ++i;
          }
        }
        if (i < n && (s[i] == 'e' || s[i] == 'E')) {  // EXPONENT only if digits follow
          std::size_t j = i + 1;
          if (j < n && (s[j] == '+' || s[j] == '-')) ++j;
          if (j < n && digit(s[j])) {
            while (j < n && digit(s[j])) ++j;
            i = j;
          }
        }
        t = T::Number;
      } else if (c == '"') {
        std::size_t j = i + 1;
        while (j < n && s[j] != '"' && s[j] != '\r' && s[j] != '\n') ++j;
        if (j >= n || s[j] != '"') return false;
        i = j + 1;
        t = T::String;
      } else {
        char d = i + 1 < n ? s[i + 1] : 0;
        ++i;
        switch (c) {
          case '(': t = T::LParen; break;
          case ')': t = T::RParen; break;
          case '{': t = T::LBrace; break;
          case '}': t = T::RBrace; break;
          case '[': t = T::LBrack; break;
          case ']': t = T::RBrack; break;
          case ',': t = T::Comma; break;
          case '+': t = T::Plus; break;
          case '-': t = T::Minus; break;
          case '*': t = T::Star; break;
          case '/': t = T::Slash; break;
          case '^': t = T::Caret; break;
          case ';': t = T::Semi; break;
          case '=':
            if (d == '=') ++i, t = T::Eq;
            else t = T::Assign;
            break;
          case '!':
            if (d != '=') return false;
            ++i, t = T::Ne;
            break;
          case '|':
            if (d != '|') return false;
            ++i, t = T::ParOp;
            break;
          case '<':
            if (d == '=') ++i, t = T::Le;
            else t = T::Lt;
            break;
          case '>':
            if (d == '=') ++i, t = T::Ge;
            else t = T::Gt;
            break;
          default:
            return false;
        }
      }
      toks_.push_back({t, static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(i - b)});
    }
    toks_.push_back({T::Eof, static_cast<std::uint32_t>(n), 0});
    // Line starts for locations (one forward pass: tokens come in order).
    return true;
  }

  T peek() const { return toks_[pos_].type; }
  T peek2() const { return pos_ + 1 < toks_.size() ? toks_[pos_ + 1].type : T::Eof; }
  bool eat(T t) {
    if (peek() != t) return false;
    ++pos_;
    return true;
  }
  void need(T t) {
    if (!eat(t)) throw GiveUp{};
  }
  std::string tok_text(std::size_t k) const { return text_.substr(toks_[k].start, toks_[k].len); }

  // Tokens are visited in order, so the line is found by walking forward.
  Loc loc(std::size_t k) {
    std::size_t off = toks_[k].start;
    const auto& ls = file_.line_starts;
    if (line_ == 0 || off < ls[line_ - 1]) {
      auto it = std::upper_bound(ls.begin(), ls.end(), off);
      line_ = static_cast<std::size_t>(it - ls.begin());
    } else {
      while (line_ < ls.size() && ls[line_] <= off) ++line_;
    }
    return Loc{&file_, static_cast<std::uint32_t>(line_), static_cast<std::uint32_t>(off - ls[line_ - 1] + 1)};
  }

  struct Depth {
    int& d;
    explicit Depth(int& d_) : d(d_) {
      if (++d > kMaxDepth) throw GiveUp{};
    }
    ~Depth() { --d; }
  };

  static Built make(Kind kind, Loc at, std::vector<Built> kids, Op op = Op::None, std::string name = {}) {
    int h = 0;
    std::vector<NodeP> nodes;
    nodes.reserve(kids.size());
    for (auto& k : kids) {
      h = std::max(h, k.height);
      nodes.push_back(std::move(k.node));
    }
    if (h + 1 > kMaxAstDepth) throw GiveUp{};
    return {ast::make(kind, at, std::move(nodes), op, std::move(name)), h + 1};
  }
  static auto chain() {
    return Chain([](Kind kind, Loc at, std::vector<Built> kids, Op op) { return make(kind, at, std::move(kids), op); });
  }
  static Built make2(Kind kind, Loc at, Built a, Built b, Op op = Op::None) {
    std::vector<Built> kids;
    kids.reserve(2);
    kids.push_back(std::move(a));
    kids.push_back(std::move(b));
    return make(kind, at, std::move(kids), op);
  }

  static int expr_prec(T t, Kind& kind, Op& op) {
    kind = Kind::Binary;
    switch (t) {
      case T::Star: op = Op::Mul; return 8;
      case T::Slash: op = Op::Div; return 8;
      case T::Mod: op = Op::Mod; return 8;
      case T::Div: op = Op::IDiv; return 8;
      case T::Plus: op = Op::Add; return 7;
      case T::Minus: op = Op::Sub; return 7;
      case T::Eq: op = Op::Eq; return 6;
      case T::Ne: op = Op::Ne; return 6;
      case T::Lt: op = Op::Lt; return 6;
      case T::Le: op = Op::Le; return 6;
      case T::Gt: op = Op::Gt; return 6;
      case T::Ge: op = Op::Ge; return 6;
      case T::And: op = Op::And; return 4;
      case T::Or: op = Op::Or; return 3;
      case T::Semi: op = Op::None; kind = Kind::Seq; return 2;
      case T::ParOp: op = Op::None; kind = Kind::Par; return 1;
      default: return 0;
    }
  }

  Built expr(int minp) {
    Depth guard(depth_);
    Built acc;
    if (peek() == T::Not) {
      Loc at = loc(pos_);
      ++pos_;
      std::vector<Built> kids;
      kids.push_back(expr(5));
      acc = make(Kind::Unary, at, std::move(kids), Op::Not);
    } else {
      acc = term();
    }
    auto ch = chain();
    for (;;) {
      Kind kind;
      Op op;
      int p = expr_prec(peek(), kind, op);
      if (p == 0 || p < minp) break;
      Loc at = loc(pos_);
      ++pos_;
      Built rhs = expr(p + 1);
      ch.step(acc, kind, op, at, std::move(rhs));
    }
    ch.close(acc);
    return acc;
  }

  Built arith(int minp) {
    Depth guard(depth_);
    Built acc = term();
    auto ch = chain();
    for (;;) {
      T t = peek();
      int p;
      Op op;
      switch (t) {
        case T::Star: op = Op::Mul; p = 2; break;
        case T::Slash: op = Op::Div; p = 2; break;
        case T::Mod: op = Op::Mod; p = 2; break;
        case T::Div: op = Op::IDiv; p = 2; break;
        case T::Plus: op = Op::Add; p = 1; break;
        case T::Minus: op = Op::Sub; p = 1; break;
        default: p = 0; break;
      }
      if (p == 0 || p < minp) break;
      Loc at = loc(pos_);
      ++pos_;
      Built rhs = arith(p + 1);
      ch.step(acc, Kind::Binary, op, at, std::move(rhs));
    }
    ch.close(acc);
    return acc;
  }

  // `kw (index = lb, ub)`: returns the index name; the caller has consumed kw.
  std::string binder_head(Built& lb, Built& ub) {
    need(T::LParen);
    if (peek() != T::Id) throw GiveUp{};
    std::string index = tok_text(pos_++);
    need(T::Assign);
    lb = expr(0);
    need(T::Comma);
    ub = expr(0);
    need(T::RParen);
    return index;
  }

  Built term() {
    Depth guard(depth_);
    T t = peek();
    if (t == T::Minus) {
      Loc at = loc(pos_);
      ++pos_;
      std::vector<Built> kids;
      kids.push_back(term());
      return make(Kind::Unary, at, std::move(kids), Op::Neg);
    }
    bool reduce = (t == T::Sum) || ((t == T::Max || t == T::Min) && peek2() == T::LParen &&
                                    pos_ + 3 < toks_.size() && toks_[pos_ + 2].type == T::Id &&
                                    toks_[pos_ + 3].type == T::Assign);
    if (t == T::Seq || t == T::Par || reduce) {
      Loc at = loc(pos_);
      ++pos_;
      Built lb, ub;
      std::string index = binder_head(lb, ub);
      Built body = term();
      std::vector<Built> kids;
      kids.reserve(3);
      kids.push_back(std::move(lb));
      kids.push_back(std::move(ub));
      if (reduce) {
        if (body.node->kind == Kind::Group) body = {body.node->kids[0], body.height - 1};
        kids.push_back(std::move(body));
        Op op = t == T::Sum ? Op::Sum : t == T::Max ? Op::Max : Op::Min;
        return make(Kind::Reduce, at, std::move(kids), op, std::move(index));
      }
      kids.push_back(std::move(body));
      return make(t == T::Seq ? Kind::SeqLoop : Kind::ParLoop, at, std::move(kids), Op::None, std::move(index));
    }
    if (t == T::If) {
      Loc at = loc(pos_);
      ++pos_;
      need(T::LParen);
      Built cond = expr(0);
      need(T::RParen);
      Built then = term();
      std::vector<Built> kids;
      kids.push_back(std::move(cond));
      kids.push_back(std::move(then));
      if (eat(T::Else)) {
        kids.push_back(term());
        return make(Kind::IfExpr, at, std::move(kids));
      }
      return make(Kind::IfProc, at, std::move(kids));
    }
    Built base = primary();
    if (peek() != T::Caret) return base;
    Loc at = loc(pos_);
    ++pos_;
    Built exp = term();
    return make2(Kind::Binary, at, std::move(base), std::move(exp), Op::Pow);
  }

  // args? followed by `close`.
  std::vector<Built> args(T close) {
    std::vector<Built> out;
    if (eat(close)) return out;
    for (;;) {
      out.push_back(expr(0));
      if (eat(T::Comma)) continue;
      need(close);
      return out;
    }
  }

  Built primary() {
    T t = peek();
    Loc at = loc(pos_);
    switch (t) {
      case T::Number: {
        std::string text = tok_text(pos_++);
        Builder::check_number(text, at);
        return {ast::make_number(at, std::move(text)), 1};
      }
      case T::Id:
      case T::Max:
      case T::Min: {
        std::string name = tok_text(pos_++);
        if (peek() == T::LParen) {
          ++pos_;
          return make(Kind::Call, at, args(T::RParen), Op::None, std::move(name));
        }
        if (t != T::Id) throw GiveUp{};
        return make(Kind::Name, at, {}, Op::None, std::move(name));
      }
      case T::Delay:
      case T::Use:
        ++pos_;
        need(T::LParen);
        return make(t == T::Delay ? Kind::Delay : Kind::Use, at, args(T::RParen));
      case T::LParen: {
        ++pos_;
        Built e = expr(0);
        need(T::RParen);
        return e;
      }
      case T::LBrace: {
        ++pos_;
        std::vector<Built> kids;
        kids.push_back(expr(0));
        need(T::RBrace);
        return make(Kind::Group, at, std::move(kids));
      }
      case T::LBrack:
        ++pos_;
        return make(Kind::Vector, at, args(T::RBrack));
      default:
        throw GiveUp{};
    }
  }

  const SourceFile& file_;
  const std::string& text_;
  std::vector<Tok> toks_;
  std::size_t pos_ = 0;
  std::size_t line_ = 0;
  int depth_ = 0;
};

}  // namespace

namespace {

// The cheap scans that keep hostile input away from both parsers.
bool text_is_parseable(const SourceFile& file, Diagnostics& diags) {
  std::string why;
  std::size_t bad = first_bad_byte(file.text, why);
  if (bad != std::string::npos) {
    diags.error(loc_at_offset(file, bad), DiagKind::InvalidEncoding, "not UTF-8 text: " + why);
    return false;
  }
  std::size_t deep = first_too_deep(file.text);
  if (deep != std::string::npos) {
    diags.error(loc_at_offset(file, deep), DiagKind::NestingTooDeep,
                "brackets nested more than " + std::to_string(kMaxBracketNesting) + " deep");
    return false;
  }
  return true;
}

}  // namespace

ast::Module parse_module(SourceFileP file, Diagnostics& diags) {
  ast::Module empty;
  empty.file = file;
  if (!text_is_parseable(*file, diags)) return empty;
  ast::Module fast;
  if (FastParser(*file).parse(fast, file)) return fast;
  return parse_module_antlr(file, diags);
}

bool parse_module_fast(SourceFileP file, ast::Module& out) {
  Diagnostics ignored;
  if (!text_is_parseable(*file, ignored)) return false;
  return FastParser(*file).parse(out, file);
}

ast::Module parse_module_antlr(SourceFileP file, Diagnostics& diags) {
  ast::Module empty;
  empty.file = file;
  if (!text_is_parseable(*file, diags)) return empty;
  const std::string& text = file->text;
  ast::Module result = empty;
  Positions pos(*file);
  run_with_stack(256u << 20, [&] {
    antlr4::ANTLRInputStream input(text);
    PamelaLexer lexer(&input);
    lexer.removeErrorListeners();
    antlr4::CommonTokenStream tokens(&lexer);
    PamelaParser parser(&tokens);
    SyntaxErrors listener(pos, diags);
    parser.removeErrorListeners();
    parser.addErrorListener(&listener);
    PamelaParser::ModuleContext* tree = nullptr;
    try {
      // SLL prediction is enough for this grammar in practice; fall back to full LL only
      // when SLL fails, the usual two-stage strategy.
      parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(antlr4::atn::PredictionMode::SLL);
      parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
      try {
        tree = parser.module();
      } catch (antlr4::ParseCancellationException&) {
        tokens.seek(0);
        parser.reset();
        parser.setErrorHandler(std::make_shared<antlr4::DefaultErrorStrategy>());
        parser.getInterpreter<antlr4::atn::ParserATNSimulator>()->setPredictionMode(antlr4::atn::PredictionMode::LL);
        tree = parser.module();
      }
    } catch (PamelaParser::NestingLimit& limit) {
      diags.error(pos.of(limit.token), DiagKind::NestingTooDeep, "expression nested too deeply");
      return;
    } catch (TooManyErrors&) {
      return;
    }
    if (listener.count() > 0 || parser.getNumberOfSyntaxErrors() > 0) return;
    try {
      result = Builder(pos).module(tree, file);
    } catch (BuildError& e) {
      diags.error(e.loc, e.kind, e.message);
    }
  });
  return result;
}

}  // namespace pamc
