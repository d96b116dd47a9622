// pamc's one JSON style (compiler/support/json.h): what every --json and --emit json prints.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "compiler/support/json.h"

using pamc::Json;
using pamc::json_text;
using pamc::JsonLines;

TEST_CASE("one line, a space after every ':' and ','") {
  Json j = {{"a", 1}, {"list", {1, 2}}, {"empty", Json::array()}, {"none", nullptr}, {"yes", true}, {"obj", Json::object()}};
  CHECK(json_text(j) == R"({"a": 1, "list": [1, 2], "empty": [], "none": null, "yes": true, "obj": {}})");
}

TEST_CASE("strings are quoted as pamc always quoted them") {
  CHECK(json_text("q\"b\\") == R"("q\"b\\")");
  CHECK(json_text("n\nt\t") == R"("n\nt\t")");
  // other control characters as \u00XX (not \b, \f, \r), DEL as it is
  CHECK(json_text(std::string("\x01\x08\x0c\x0d\x1f\x7f")) == "\"\\u0001\\u0008\\u000c\\u000d\\u001f\x7f\"");
  CHECK(json_text("\u00e9\u6f22") == "\"\u00e9\u6f22\"");                  // UTF-8 as it is
  CHECK(json_text(std::string("bad\xff\xe6")) == "\"bad\xff\xe6\"");        // a file name's bytes, not UTF-8
  CHECK(json_text(Json{{"k\"ey\x02", 1}}) == "{\"k\\\"ey\\u0002\": 1}");  // keys too
}

TEST_CASE("a double: the fewest digits that read back, laid out as %g") {
  CHECK(json_text(0.1) == "0.1");
  CHECK(json_text(0.0001) == "0.0001");
  CHECK(json_text(1e-05) == "1e-05");
  CHECK(json_text(100000.0) == "1e+05");
  CHECK(json_text(123456.0) == "123456");
  CHECK(json_text(3.61604126654211) == "3.61604126654211");  // not Grisu2's 3.6160412665421102
  CHECK(json_text(1e300) == "1e+300");
  CHECK(json_text(-0.0) == "-0");
  CHECK(json_text(5e-324) == "5e-324");
  CHECK(json_text(Json(12345678901234567LL)) == "12345678901234567");  // an integer stays one
}

TEST_CASE("json_number rounds to digits, a whole number prints as one, not finite is null") {
  CHECK(json_text(pamc::json_number(2.0 / 3, 6)) == "0.666667");
  CHECK(json_text(pamc::json_number(1234567.0, 6)) == "1234570");
  CHECK(json_text(pamc::json_number(std::nan(""))) == "null");
  CHECK(json_text(pamc::json_number(std::numeric_limits<double>::infinity())) == "null");
  CHECK(json_text(pamc::json_number(std::optional<double>())) == "null");
}

TEST_CASE("json_number_text prints the number as the command decided it") {
  Json j = {{"exact", pamc::json_number_text("1267650600228229401496703205376")},
            {"list", {pamc::json_number_text("0.1"), pamc::json_number_text("1e-30")}}};
  CHECK(json_text(j) == R"({"exact": 1267650600228229401496703205376, "list": [0.1, 1e-30]})");
  // any other binary value is a mistake, not output
  CHECK_THROWS_AS(json_text(Json::binary({1, 2})), std::logic_error);
}

TEST_CASE("json_append keeps a key asked for twice") {
  Json j = Json::object();
  pamc::json_append(j, "T_main", 1);
  pamc::json_append(j, "T_main", 2);
  CHECK(json_text(j) == R"({"T_main": 1, "T_main": 2})");
}

TEST_CASE("JsonLines: items a line, two spaces deeper, a member under the first key") {
  Json doc = {{"model", "m"}, {"parameters", Json::array()}, {"equations", {{{"name", "T"}, {"tree", {{"sym", "P"}}}}}}};
  CHECK(json_text(doc, {{"", JsonLines::Items},
                        {"/parameters", JsonLines::ItemsEvenEmpty},
                        {"/equations", JsonLines::ItemsEvenEmpty},
                        {"/equations/*/tree", JsonLines::Before}}) ==
        "{\n"
        "  \"model\": \"m\",\n"
        "  \"parameters\": [\n"
        "  ],\n"
        "  \"equations\": [\n"
        "    {\"name\": \"T\",\n"
        "     \"tree\": {\"sym\": \"P\"}}\n"
        "  ]\n"
        "}");
  Json v = {{"traces", {{{"regions", {{{"counters", Json::object()}}, {{"counters", {{"c", 1}, {"d", 2}}}}}}}}}};
  CHECK(json_text(v, {{"/traces", JsonLines::ItemsEvenEmpty},
                      {"/traces/*/regions", JsonLines::ItemsEvenEmpty},
                      {"/traces/*/regions/*/counters", JsonLines::Items}}) ==
        "{\"traces\": [\n"
        "  {\"regions\": [\n"
        "    {\"counters\": {}},\n"
        "    {\"counters\": {\n"
        "      \"c\": 1,\n"
        "      \"d\": 2\n"
        "    }}\n"
        "  ]}\n"
        "]}");
  // no rule: one line, however deep
  CHECK(json_text(v) == R"({"traces": [{"regions": [{"counters": {}}, {"counters": {"c": 1, "d": 2}}]}]})");
}

TEST_CASE("a number whose text is not a JSON number (inf, nan) is null, so the document stays JSON") {
  // eval --json of delay(exp(1000 * x)) at x = 1: the exact evaluator's value overflows to inf
  CHECK(pamc::json_text(pamc::Json{{"T_main", pamc::json_number_text("inf")}}) == R"({"T_main": null})");
  CHECK(pamc::json_text(pamc::json_number_text("-inf")) == "null");
  CHECK(pamc::json_text(pamc::json_number_text("nan")) == "null");
  for (const char* ok : {"0", "-0", "20.2", "1267650600228229401496703205376", "1.5e-300", "2E+10", "-3.25"})
    CHECK(pamc::json_text(pamc::json_number_text(ok)) == ok);
  for (const char* bad : {"", "-", "01", "1.", ".5", "1e", "1e+", "+1", "0x10", "1 2"})
    CHECK(pamc::json_text(pamc::json_number_text(bad)) == "null");
}
