// JSON documents through nlohmann-json: a command builds a Json value and prints it with
// json_text(), which writes pamc's one JSON style, `{"key": value, "list": [1, 2]}` (a space
// after every ':' and ','), on one line. nlohmann escapes the strings; a double prints
// with the fewest digits that read back as it, laid out as printf's %g would.
#pragma once
#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace pamc {

using Json = nlohmann::ordered_json;  // keys keep the order they were added in

std::string json_text(const Json& j);

// v to `digits` significant digits (as printf's %.*g rounds): a whole number prints
// without a fraction (5, not 5.0); not finite (or no value) is null.
Json json_number(double v, int digits = 17);
Json json_number(const std::optional<double>& v, int digits = 17);

}  // namespace pamc
