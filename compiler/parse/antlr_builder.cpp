// The reference parser: ANTLR's generated lexer and parser (grammar/Pamela.g4), a listener
// that turns ANTLR's syntax errors into SyntaxError diagnostics, and the Builder that walks
// the parse tree and makes the AST. The only file that includes ANTLR's headers; the parse
// tree never leaves it. It runs on a thread with a big stack (run_with_stack); parse_module
// runs it only when the fast parser (fast_parser.cpp) has given up.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "PamelaLexer.h"
#include "PamelaParser.h"
#include "antlr4-runtime.h"
#include "compiler/parse/build_ast.h"
#include "compiler/parse/guards.h"
#include "compiler/parse/parse.h"
#include "compiler/parse/parsers.h"

namespace pamc::parse {
namespace {

using pamela_grammar::PamelaLexer;
using pamela_grammar::PamelaParser;
using ast::Kind;
using ast::Op;

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

// Walks the parse tree (contexts are known by their generated classes) and makes the AST
// through build_ast.h, as the fast parser does. Left-nested operator chains are walked in
// a loop, not by recursion.
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
  void binary(Chain& chain, Built& acc, antlr4::Token* op_tok, Built rhs) {
    std::string s = op_tok->getText();
    Kind kind = s == ";" ? Kind::Seq : s == "||" ? Kind::Par : Kind::Binary;
    chain.step(acc, kind, kind == Kind::Binary ? binary_op(s) : Op::None, loc(op_tok), std::move(rhs));
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
      acc = make_node(Kind::Unary, loc(n->NOT()->getSymbol()), {expr(n->expr())}, Op::Not);
    } else {
      throw CompileError(loc(leftmost->getStart()), DiagKind::SyntaxError, "malformed expression");
    }
    Chain ch;
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
    Chain ch;
    for (auto it = spine.rbegin(); it != spine.rend(); ++it) {
      auto* rhs = static_cast<PamelaParser::ArithContext*>((*it)->children[2]);
      binary(ch, acc, op_token(*it), arith(rhs));
    }
    ch.close(acc);
    return acc;
  }

  Built term(PamelaParser::TermContext* ctx) {
    if (auto* p = dynamic_cast<PamelaParser::PowTermContext*>(ctx)) {
      Built base = primary(p->primary());
      if (!p->term()) return base;
      return make_node(Kind::Binary, loc(op_token(p)), {std::move(base), term(p->term())}, Op::Pow);
    }
    if (auto* n = dynamic_cast<PamelaParser::NegTermContext*>(ctx))
      return make_node(Kind::Unary, loc(n->getStart()), {term(n->term())}, Op::Neg);
    if (auto* l = dynamic_cast<PamelaParser::LoopTermContext*>(ctx)) {
      Kind k = l->kw->getType() == PamelaLexer::SEQ ? Kind::SeqLoop : Kind::ParLoop;
      return make_node(k, loc(l->kw), {expr(l->lb), expr(l->ub), term(l->term())}, Op::None, l->index->getText());
    }
    if (auto* r = dynamic_cast<PamelaParser::ReduceTermContext*>(ctx)) {
      Op op = r->kw->getType() == PamelaLexer::SUM ? Op::Sum : r->kw->getType() == PamelaLexer::MAX ? Op::Max : Op::Min;
      return make_node(Kind::Reduce, loc(r->kw), {expr(r->lb), expr(r->ub), strip_group(term(r->term()))}, op,
                  r->index->getText());
    }
    if (auto* i = dynamic_cast<PamelaParser::IfTermContext*>(ctx)) {
      Loc at = loc(i->getStart());
      if (i->other) return make_node(Kind::IfExpr, at, {expr(i->cond), term(i->then), term(i->other)});
      return make_node(Kind::IfProc, at, {expr(i->cond), term(i->then)});
    }
    throw CompileError(loc(ctx->getStart()), DiagKind::SyntaxError, "malformed term");
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
      return make_node(Kind::Name, loc(n->getStart()), {}, Op::None, n->ID()->getText());
    if (auto* c = dynamic_cast<PamelaParser::CallPrimContext*>(ctx))
      return make_node(Kind::Call, loc(c->fn), args(c->args()), Op::None, c->fn->getText());
    if (auto* d = dynamic_cast<PamelaParser::DelayPrimContext*>(ctx))
      return make_node(Kind::Delay, loc(d->getStart()), args(d->args()));
    if (auto* u = dynamic_cast<PamelaParser::UsePrimContext*>(ctx))
      return make_node(Kind::Use, loc(u->getStart()), args(u->args()));
    if (auto* p = dynamic_cast<PamelaParser::ParenPrimContext*>(ctx)) return expr(p->expr());
    if (auto* g = dynamic_cast<PamelaParser::GroupPrimContext*>(ctx))
      return make_node(Kind::Group, loc(g->getStart()), {expr(g->expr())});
    if (auto* v = dynamic_cast<PamelaParser::VectorPrimContext*>(ctx))
      return make_node(Kind::Vector, loc(v->getStart()), args(v->args()));
    throw CompileError(loc(ctx->getStart()), DiagKind::SyntaxError, "malformed expression");
  }

  const Positions& pos_;
};
}  // namespace

ast::Module run_antlr_parser(const SourceFileP& file, Diagnostics& diags) {
  ast::Module empty;
  empty.file = file;
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
    } catch (CompileError& e) {  // a literal out of range, an AST too deep
      diags.add(std::move(e.diag));
    }
  });
  return result;
}

}  // namespace pamc::parse
