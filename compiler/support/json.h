// JSON documents through nlohmann-json: a command builds a Json value and prints it with
// json_text(), which writes pamc's one JSON style, `{"key": value, "list": [1, 2]}` (a space
// after every ':' and ','), on one line unless JsonLines rules break it. Strings are
// quoted as pamc always quoted them: `"` `\` escaped, newline and tab as \n and \t, other
// control characters as \u00XX, every other byte as it is (UTF-8 passes through; so do
// bytes of a file name that are not UTF-8). A double prints with the fewest digits that
// read back as it, laid out as printf's %g would.
#pragma once
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace pamc {

using Json = nlohmann::ordered_json;  // keys keep the order they were added in

// Where a document breaks lines (`compile --emit json`, `validate --json`); without rules
// it is one line. A path names a member from the document down: "/equations/*/tree" ("*":
// any key or index; "" is the document itself).
struct JsonLines {
  enum Kind {
    Items,           // the container puts each item on a line of its own, two spaces deeper
                     // than the line it opens on, and closes on a line of its own; "{}" when empty
    ItemsEvenEmpty,  // the same, and an empty one still closes on a line of its own ("[\n  ]")
    Before,          // the member starts a line of its own, under its object's first key
  };
  std::string path;
  Kind kind;
};

std::string json_text(const Json& j, const std::vector<JsonLines>& lines = {});

// v to `digits` significant digits (as printf's %.*g rounds): a whole number prints
// without a fraction (5, not 5.0); not finite (or no value) is null.
Json json_number(double v, int digits = 17);
Json json_number(const std::optional<double>& v, int digits = 17);

// A number whose text the command has already decided, printed as it is: pamc's exact
// numbers (format_number: 2^100 in full, 10.1 as the decimal it is), which neither a
// double nor a 64-bit integer holds, and outputs whose numbers print as their text form
// prints them (simulate, validate). Text that is not a JSON number (inf, nan) is null.
Json json_number_text(const std::string& text);

// Adds key: value at the end of object even when key is already there (json["k"] = v would
// replace it): an object keyed by what the user asked for (`--target T --target T`) shows
// each answer.
void json_append(Json& object, const std::string& key, Json value);

}  // namespace pamc
