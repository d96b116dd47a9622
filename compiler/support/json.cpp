#include "compiler/support/json.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace pamc {

namespace {

// The binary subtype that marks json_number_text's value (pamc writes no other binary).
constexpr std::uint64_t kNumberText = 0x70;

void write_string(std::string& out, const std::string& s) {
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

void write_double(std::string& out, double v) {
  // The fewest digits that read back as the double (C++17's to_chars; nlohmann's Grisu2
  // is not always the fewest: 3.6160412665421102 for 3.61604126654211), laid out as
  // printf's %g lays out that many digits (0.0001, 1e-05), as pamc's JSON always was.
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  int digits = 0;
  for (char* q = buf; q < r.ptr && *q != 'e'; ++q) digits += (*q >= '0' && *q <= '9');
  r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, std::max(digits, 1));
  out.append(buf, r.ptr);
}

// A document's text with its line-break rules: the path from the document to the value
// being written is kept only as deep as the deepest rule.
class Writer {
 public:
  Writer(std::string& out, const std::vector<JsonLines>& lines) : out_(out) {
    for (const JsonLines& l : lines) {
      Rule rule{{}, l.kind};
      for (std::size_t at = 0; at < l.path.size();) {  // "/a/*/b" -> a, *, b
        std::size_t next = l.path.find('/', at + 1);
        if (next == std::string::npos) next = l.path.size();
        rule.path.push_back(l.path.substr(at + 1, next - at - 1));
        at = next;
      }
      depth_ = std::max(depth_, rule.path.size());
      rules_.push_back(std::move(rule));
    }
  }

  void write(const Json& j) {
    if (j.is_object()) {
      container(j, '{', '}');
    } else if (j.is_array()) {
      container(j, '[', ']');
    } else if (j.is_string()) {
      write_string(out_, j.get_ref<const std::string&>());
    } else if (j.is_number_float()) {
      write_double(out_, j.get<double>());
    } else if (j.is_binary()) {
      const Json::binary_t& b = j.get_binary();
      if (!b.has_subtype() || b.subtype() != kNumberText) throw std::logic_error("json_text: binary value");
      out_.append(b.begin(), b.end());
    } else {
      out_ += j.dump();  // an integer, true, false or null: nlohmann's own text
    }
  }

 private:
  struct Rule {
    std::vector<std::string> path;
    JsonLines::Kind kind;
  };

  // The rule of this kind for the value at the current path, if one applies.
  bool rule(JsonLines::Kind kind) const {
    if (level_ > depth_) return false;
    for (const Rule& r : rules_) {
      if (r.kind != kind || r.path.size() != level_) continue;
      bool match = true;
      for (std::size_t i = 0; i < path_.size() && match; ++i) match = r.path[i] == "*" || r.path[i] == path_[i];
      if (match) return true;
    }
    return false;
  }

  void new_line(std::size_t indent) {
    out_ += '\n';
    line_start_ = out_.size();
    out_.append(indent, ' ');
    line_indent_ = indent;
  }

  void container(const Json& j, char open, char close) {
    const bool items = rule(JsonLines::Items), even_empty = rule(JsonLines::ItemsEvenEmpty);
    const std::size_t indent = line_indent_;
    const std::size_t first_key = out_.size() - line_start_ + 1;  // the column after the bracket
    const bool deep = level_ < depth_;  // a rule may name the members
    out_ += open;
    ++level_;
    std::size_t i = 0;
    for (auto it = j.begin(); it != j.end(); ++it, ++i) {
      if (deep) path_.push_back(j.is_object() ? it.key() : std::string("*"));
      if (i) out_ += ',';
      if (items || even_empty) new_line(indent + 2);
      else if (deep && j.is_object() && rule(JsonLines::Before)) new_line(first_key);
      else if (i) out_ += ' ';
      if (j.is_object()) {
        write_string(out_, it.key());
        out_ += ": ";
      }
      write(it.value());
      if (deep) path_.pop_back();
      line_indent_ = indent;
    }
    --level_;
    if ((items && i) || even_empty) new_line(indent);
    out_ += close;
  }

  std::string& out_;
  std::vector<Rule> rules_;
  std::size_t depth_ = 0;          // the deepest rule's path length
  std::size_t level_ = 0;          // how deep the value being written is
  std::vector<std::string> path_;  // its keys ("*" for an array's items), while level_ <= depth_
  std::size_t line_start_ = 0;     // where the current line starts in out_
  std::size_t line_indent_ = 0;    // spaces that open it
};

}  // namespace

std::string json_text(const Json& j, const std::vector<JsonLines>& lines) {
  std::string out;
  Writer(out, lines).write(j);
  return out;
}

Json json_number(double v, int digits) {
  if (!std::isfinite(v)) return nullptr;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  double r = std::strtod(buf, nullptr);
  if (r == std::floor(r) && std::fabs(r) < 1e15) return static_cast<long long>(r);
  return r;
}

Json json_number(const std::optional<double>& v, int digits) {
  return v ? json_number(*v, digits) : Json(nullptr);
}

namespace {
// JSON's number grammar, as nlohmann's strict reader checks it (no "inf", "01", "+1", "1.").
// JSON's number grammar, -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, read by hand: a
// parser would refuse an exact integer past a double's range (2 ^ 10000), which is a
// valid JSON number all the same.
bool is_json_number(const std::string& t) {
  size_t i = 0, n = t.size();
  auto digits = [&] {
    size_t start = i;
    while (i < n && t[i] >= '0' && t[i] <= '9') ++i;
    return i > start;
  };
  if (i < n && t[i] == '-') ++i;
  if (i < n && t[i] == '0') ++i;
  else if (!digits()) return false;
  if (i < n && t[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < n && (t[i] == '+' || t[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == n;
}
}  // namespace

Json json_number_text(const std::string& text) {
  if (!is_json_number(text)) return nullptr;  // inf, nan: JSON has no such numbers
  return Json::binary(Json::binary_t::container_type(text.begin(), text.end()), kNumberText);
}

void json_append(Json& object, const std::string& key, Json value) {
  if (object.is_null()) object = Json::object();
  // ordered_json keeps an object's members in a vector: append to it directly.
  static_cast<Json::object_t::Container&>(object.get_ref<Json::object_t&>()).emplace_back(key, std::move(value));
}

}  // namespace pamc
