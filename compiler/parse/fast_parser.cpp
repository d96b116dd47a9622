// The fast parser: a hand-written lexer and recursive-descent parser for grammar/Pamela.g4
// that builds the same AST as the ANTLR builder (antlr_builder.cpp) -- same nodes, names,
// locations and limits, all through build_ast.h -- without ANTLR's token objects, parse
// tree and adaptive prediction, which cost ~250,000 instructions per line.
//
// It accepts only what it is sure of: on any lexical or syntax error, a too-deep nesting,
// or a literal out of range it gives up (returns false, reports nothing) and parse_module
// runs ANTLR, the reference, which parses and reports. So for valid input the AST is the
// one ANTLR would give, and for invalid input the output is ANTLR's, unchanged
// (docs/design.md, "Two parsers, one grammar"; tests/unit/front_fastparse.cpp keeps them
// equal). Each method below quotes the Pamela.g4 rule it implements.
//
// Precedence follows ANTLR's rewriting of the left-recursive rules: expr alternatives
// Mul 8, Add 7, Cmp 6, Not (prefix) 5, And 4, Or 3, Seq 2, Par 1, all left-associative
// (operand of `not` parsed at 5, right operands at prec + 1); arith: Mul 2, Add 1.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "compiler/parse/build_ast.h"
#include "compiler/parse/guards.h"
#include "compiler/parse/parse.h"
#include "compiler/parse/parsers.h"

namespace pamc::parse {
namespace {

using ast::Kind;
using ast::Op;

class FastParser {
 public:
  explicit FastParser(const SourceFile& f) : file_(f), text_(f.text) {}

  // module : item* EOF ;
  bool module(ast::Module& out, SourceFileP file) {
    if (!lex()) return false;
    try {
      out.file = std::move(file);
      while (peek() != T::Eof) item(out);
    } catch (GiveUp&) {
      return false;
    } catch (CompileError&) {  // a literal out of range, an AST too deep: ANTLR reports it
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

  // item
  //   : IMPORT STRING                                                  # ImportItem
  //   | declType PARAMETER name=ID formals? ('=' dflt=arith)? bound*    # ParamDecl
  //   | declType name=ID formals? '=' body=expr                        # EqDecl
  //   | REGION name=ID '{' counter+ '}'                                # RegionItem
  //   ;
  void item(ast::Module& out) {
    switch (peek()) {
      case T::Import: return import_item(out);
      case T::Region: return region_item(out);
      case T::Numeric:
      case T::Process:
      case T::Resource: out.decls.push_back(decl()); return;
      default: throw GiveUp{};
    }
  }

  // IMPORT STRING   # ImportItem
  void import_item(ast::Module& out) {
    Loc at = loc(pos_);
    ++pos_;  // IMPORT
    if (peek() != T::String) throw GiveUp{};
    std::string s = tok_text(pos_++);
    out.imports.push_back({s.substr(1, s.size() - 2), at});
  }

  // REGION name=ID '{' counter+ '}'   # RegionItem
  void region_item(ast::Module& out) {
    ++pos_;  // REGION
    if (peek() != T::Id) throw GiveUp{};
    std::string region = tok_text(pos_);
    Loc region_loc = loc(pos_);
    ++pos_;
    need(T::LBrace);
    if (peek() != T::Numeric) throw GiveUp{};
    while (peek() == T::Numeric) out.decls.push_back(counter(region, region_loc));
    need(T::RBrace);
  }

  // counter : NUMERIC name=ID '=' body=expr ;
  // (one numeric declaration named REGION.COUNTER)
  ast::Decl counter(const std::string& region, Loc region_loc) {
    ast::Decl d;
    d.loc = loc(pos_);
    ++pos_;  // NUMERIC
    if (peek() != T::Id) throw GiveUp{};
    d.region = region;
    d.region_loc = region_loc;
    d.name = region + "." + tok_text(pos_);
    d.name_loc = loc(pos_);
    ++pos_;
    need(T::Assign);
    d.body = expr(0).node;
    return d;
  }

  // declType PARAMETER name=ID formals? ('=' dflt=arith)? bound*    # ParamDecl
  // declType name=ID formals? '=' body=expr                        # EqDecl
  // declType : NUMERIC | PROCESS | RESOURCE ;
  ast::Decl decl() {
    ast::Decl d;
    d.type = peek() == T::Numeric ? ast::Type::Numeric : peek() == T::Process ? ast::Type::Process : ast::Type::Resource;
    d.loc = loc(pos_);
    ++pos_;
    bool param = eat(T::Parameter);
    if (peek() != T::Id) throw GiveUp{};
    d.name = tok_text(pos_);
    d.name_loc = loc(pos_);
    ++pos_;
    if (peek() == T::LParen) formals(d);
    if (param) {
      d.is_parameter = true;
      if (eat(T::Assign)) d.body = arith(0).node;
      while (peek() == T::Ge || peek() == T::Gt || peek() == T::Le || peek() == T::Lt) d.bounds.push_back(bound());
    } else {
      need(T::Assign);
      d.body = expr(0).node;
    }
    return d;
  }

  // formals : '(' (ID (',' ID)*)? ')' ;
  void formals(ast::Decl& d) {
    need(T::LParen);
    if (peek() != T::RParen) {
      for (;;) {
        if (peek() != T::Id) throw GiveUp{};
        d.formals.push_back(tok_text(pos_));
        d.formal_locs.push_back(loc(pos_));
        ++pos_;
        if (!eat(T::Comma)) break;
      }
    }
    need(T::RParen);
  }

  // bound : op=('>=' | '>' | '<=' | '<') value=arith ;
  ast::Bound bound() {
    ast::Bound b;
    T t = peek();
    b.op = t == T::Ge ? Op::Ge : t == T::Gt ? Op::Gt : t == T::Le ? Op::Le : Op::Lt;
    ++pos_;
    b.value = arith(0).node;
    return b;
  }

  // The character classes of the lexer rules:
  //   ID : [a-zA-Z_] [a-zA-Z_0-9]* ;    fragment DIGITS : [0-9]+ ;
  static bool id_start(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
  static bool id_char(unsigned char c) { return id_start(c) || (c >= '0' && c <= '9'); }
  static bool digit(unsigned char c) { return c >= '0' && c <= '9'; }

  // The keyword rules, which win over ID on a match of the same length:
  //   IMPORT : 'import' ;  NUMERIC : 'numeric' ;  PROCESS : 'process' ;  RESOURCE : 'resource' ;
  //   PARAMETER : 'parameter' ;  REGION : 'region' ;  SEQ : 'seq' ;  PAR : 'par' ;  IF : 'if' ;
  //   ELSE : 'else' ;  DELAY : 'delay' ;  USE : 'use' ;  SUM : 'sum' ;  MAX : 'max' ;
  //   MIN : 'min' ;  MOD : 'mod' ;  DIV : 'div' ;  AND : 'and' ;  OR : 'or' ;  NOT : 'not' ;
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

  // The lexer rules of Pamela.g4, longest match first:
  //   ID : [a-zA-Z_] [a-zA-Z_0-9]* ;   (or a keyword, keyword())
  //   NUMBER : DIGITS ('.' DIGITS?)? EXPONENT? | '.' DIGITS EXPONENT? ;
  //   fragment EXPONENT : [eE] [+-]? DIGITS ;
  //   STRING : '"' ~["\r\n]* '"' ;
  //   COMMENT : '%' ~[\r\n]* -> skip ;
  //   WS : [ \t\r\n\f]+ -> skip ;
  //   the literal tokens of the parser rules ( ) { } [ ] , = + - * / ^ ; || == != < <= > >=
  //   ERRCHAR : . ;   -> gives up (so does every non-ASCII character outside comments
  //                      and strings, and a STRING without its closing quote)
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
    return true;
  }

  // Token access (no rule): the current token, the one after it, consuming an expected one
  // (`need` gives up where it is missing), a token's text.
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

  // A token's location (no rule). Tokens are visited in order, so the line is found by
  // walking forward.
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

  // The grammar's nesting guard of arith, expr and term:
  //   @init { DepthGuard guard_(nesting_depth, this); }
  // with a lower limit (kMaxDepth): deeper input is left to ANTLR.
  struct Depth {
    int& d;
    explicit Depth(int& d_) : d(d_) {
      if (++d > kMaxDepth) throw GiveUp{};
    }
    ~Depth() { --d; }
  };

  // The binary operators of expr and their precedence levels (0: not an operator):
  //   expr op=('*' | '/' | MOD | DIV) expr          # MulExpr   8
  //   expr op=('+' | '-') expr                      # AddExpr   7
  //   expr op=('==' | '!=' | '<' | '<=' | '>' | '>=') expr   # CmpExpr   6
  //   expr AND expr                                 # AndExpr   4
  //   expr OR expr                                  # OrExpr    3
  //   expr ';' expr                                 # SeqExpr   2
  //   expr '||' expr                                # ParExpr   1
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

  // expr
  //   : term                                          # TermExpr
  //   | expr op=('*' | '/' | MOD | DIV) expr          # MulExpr
  //   | expr op=('+' | '-') expr                      # AddExpr
  //   | expr op=('==' | '!=' | '<' | '<=' | '>' | '>=') expr   # CmpExpr
  //   | NOT expr                                      # NotExpr
  //   | expr AND expr                                 # AndExpr
  //   | expr OR expr                                  # OrExpr
  //   | expr ';' expr                                 # SeqExpr
  //   | expr '||' expr                                # ParExpr
  //   ;
  // by precedence climbing from level `minp` (expr_prec).
  Built expr(int minp) {
    Depth guard(depth_);
    Built acc;
    if (peek() == T::Not) {
      Loc at = loc(pos_);
      ++pos_;
      std::vector<Built> kids;
      kids.push_back(expr(5));
      acc = make_node(Kind::Unary, at, std::move(kids), Op::Not);
    } else {
      acc = term();
    }
    Chain ch;
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

  // arith
  //   : term                                          # ArithTerm
  //   | arith op=('*' | '/' | MOD | DIV) arith        # ArithMul   2
  //   | arith op=('+' | '-') arith                    # ArithAdd   1
  //   ;
  Built arith(int minp) {
    Depth guard(depth_);
    Built acc = term();
    Chain ch;
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

  // The binder of LoopTerm and ReduceTerm, after kw:
  //   '(' index=ID '=' lb=expr ',' ub=expr ')'
  // Returns the index name.
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

  // term
  //   : primary ('^' term)?                                            # PowTerm
  //   | '-' term                                                       # NegTerm
  //   | kw=(SEQ | PAR) '(' index=ID '=' lb=expr ',' ub=expr ')' term   # LoopTerm
  //   | kw=(SUM | MAX | MIN) '(' index=ID '=' lb=expr ',' ub=expr ')' term   # ReduceTerm
  //   | IF '(' cond=expr ')' then=term (ELSE other=term)?              # IfTerm
  //   ;
  // (max/min begin a ReduceTerm only when `( ID =` follows; else a CallPrim.)
  Built term() {
    Depth guard(depth_);
    T t = peek();
    if (t == T::Minus) {
      Loc at = loc(pos_);
      ++pos_;
      std::vector<Built> kids;
      kids.push_back(term());
      return make_node(Kind::Unary, at, std::move(kids), Op::Neg);
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
        kids.push_back(strip_group(std::move(body)));
        Op op = t == T::Sum ? Op::Sum : t == T::Max ? Op::Max : Op::Min;
        return make_node(Kind::Reduce, at, std::move(kids), op, std::move(index));
      }
      kids.push_back(std::move(body));
      return make_node(t == T::Seq ? Kind::SeqLoop : Kind::ParLoop, at, std::move(kids), Op::None, std::move(index));
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
        return make_node(Kind::IfExpr, at, std::move(kids));
      }
      return make_node(Kind::IfProc, at, std::move(kids));
    }
    Built base = primary();
    if (peek() != T::Caret) return base;
    Loc at = loc(pos_);
    ++pos_;
    std::vector<Built> kids;
    kids.reserve(2);
    kids.push_back(std::move(base));
    kids.push_back(term());
    return make_node(Kind::Binary, at, std::move(kids), Op::Pow);
  }

  // args : expr (',' expr)* ;
  // as `args? close` (close: ')' or ']'), the opening bracket already consumed.
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

  // primary
  //   : NUMBER                                         # NumberPrim
  //   | fn=(ID | MAX | MIN) '(' args? ')'               # CallPrim
  //   | ID                                             # NamePrim
  //   | DELAY '(' args? ')'                            # DelayPrim
  //   | USE '(' args? ')'                              # UsePrim
  //   | '(' expr ')'                                   # ParenPrim
  //   | '{' expr '}'                                   # GroupPrim
  //   | '[' args? ']'                                  # VectorPrim
  //   ;
  Built primary() {
    T t = peek();
    Loc at = loc(pos_);
    switch (t) {
      case T::Number: {
        std::string text = tok_text(pos_++);
        check_number(text, at);
        return {ast::make_number(at, std::move(text)), 1};
      }
      case T::Id:
      case T::Max:
      case T::Min: {
        std::string name = tok_text(pos_++);
        if (peek() == T::LParen) {
          ++pos_;
          return make_node(Kind::Call, at, args(T::RParen), Op::None, std::move(name));
        }
        if (t != T::Id) throw GiveUp{};
        return make_node(Kind::Name, at, {}, Op::None, std::move(name));
      }
      case T::Delay:
      case T::Use:
        ++pos_;
        need(T::LParen);
        return make_node(t == T::Delay ? Kind::Delay : Kind::Use, at, args(T::RParen));
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
        return make_node(Kind::Group, at, std::move(kids));
      }
      case T::LBrack:
        ++pos_;
        return make_node(Kind::Vector, at, args(T::RBrack));
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

bool run_fast_parser(const SourceFileP& file, ast::Module& out) { return FastParser(*file).module(out, file); }

}  // namespace pamc::parse

namespace pamc {

bool parse_module_fast(SourceFileP file, ast::Module& out) {
  Diagnostics ignored;
  if (!parse::text_is_parseable(*file, ignored)) return false;
  return parse::run_fast_parser(file, out);
}

}  // namespace pamc
