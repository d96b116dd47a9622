#include "compiler/lsp/queries.h"

#include <set>

#include "compiler/check/check.h"
#include "compiler/lsp/analysis.h"

namespace pamc::lsp {
namespace {

std::pair<long, long> at(const Json& p) { return {p.value("line", 0L), p.value("character", 0L)}; }

// Whether position p lies in range r (the end counts: the cursor just after a name is on it).
bool contains(const Json& r, const Json& p) {
  auto pos = at(p), start = at(r["start"]), end = at(r["end"]);
  return start <= pos && pos <= end;
}

// The target of the name under the cursor, or -1.
long target_at(const Snapshot& s, const Json& pos) {
  if (!s.front.is_object()) return -1;
  for (const Json& o : s.front["occurrences"])
    if (o["uri"] == s.uri && contains(o["range"], pos)) return o["target"].get<long>();
  return -1;
}

Json location(const Json& j) { return Json{{"uri", j["uri"]}, {"range", j["range"]}}; }

Json markdown(const std::string& text) { return Json{{"contents", {{"kind", "markdown"}, {"value", text}}}}; }

}  // namespace

Json hover(const Snapshot& s, const Json& pos) {
  long t = target_at(s, pos);
  if (t >= 0) {
    const std::string key = std::to_string(t);
    if (s.model.is_object() && s.model.contains("hovers") && s.model["hovers"].contains(key))
      return markdown(s.model["hovers"][key].get<std::string>());
    const Json& target = s.front["targets"][static_cast<std::size_t>(t)];
    return markdown("```pamela\n" + target["detail"].get<std::string>() + "\n```\n");
  }
  if (s.model.is_object() && s.model.contains("loops"))
    for (const Json& l : s.model["loops"])
      if (l["uri"] == s.uri && contains(l["range"], pos)) return markdown(l["text"].get<std::string>());
  return nullptr;
}

Json definition(const Snapshot& s, const Json& pos) {
  long t = target_at(s, pos);
  if (t < 0) return nullptr;
  return location(s.front["targets"][static_cast<std::size_t>(t)]);
}

Json references(const Snapshot& s, const Json& pos, bool include_declaration) {
  long t = target_at(s, pos);
  Json out = Json::array();
  if (t < 0) return out;
  const Json& target = s.front["targets"][static_cast<std::size_t>(t)];
  for (const Json& o : s.front["occurrences"]) {
    if (o["target"].get<long>() != t) continue;
    bool is_declaration = o["uri"] == target["uri"] && o["range"] == target["range"];
    if (is_declaration && !include_declaration) continue;
    out.push_back(location(o));
  }
  return out;
}

Json completion(const Snapshot& s, const Json& pos) {
  Json items = Json::array();
  std::set<std::string> seen;
  auto add = [&](const std::string& label, int kind, const std::string& detail) {
    if (!seen.insert(label).second) return;
    items.push_back({{"label", label}, {"kind", kind}, {"detail", detail}});
  };
  if (s.front.is_object()) {
    // Formals and loop indices of the declaration under the cursor first, then every
    // declaration of the model and its imports (machine constants among them).
    for (const Json& t : s.front["targets"]) {
      std::string kind = t["kind"];
      bool local = kind == "formal" || kind == "index";
      if (local && t["uri"] == s.uri && t.contains("scope") && contains(t["scope"], pos))
        add(t["name"], 6, t["detail"]);  // Variable
    }
    for (const Json& t : s.front["targets"]) {
      std::string kind = t["kind"];
      if (kind == "formal" || kind == "index") continue;
      int k = kind == "process" ? 3 : kind == "parameter" ? 21 : kind == "resource" ? 22 : 6;  // Function, Constant, Struct, Variable
      std::string detail = t["detail"];
      if (detail.size() > 80) detail = detail.substr(0, 77) + "...";
      add(t["name"], k, detail);
    }
  }
  for (const Builtin& b : builtin_functions()) add(b.name, 3, "builtin function");
  for (const std::string& k : keywords()) add(k, 14, "keyword");
  return Json{{"isIncomplete", false}, {"items", items}};
}

Json document_symbols(const Snapshot& s) {
  if (!s.front.is_object()) return Json::array();
  return s.front["symbols"];
}

Json inlay_hints(const Snapshot& s, const Json& r) {
  Json out = Json::array();
  if (!s.model.is_object() || !s.model.contains("hints")) return out;
  for (const Json& h : s.model["hints"])
    if (!r.is_object() || contains(r, h["position"])) out.push_back(h);
  return out;
}

}  // namespace pamc::lsp
