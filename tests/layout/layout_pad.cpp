// Linked into pamc_layout_probe only: 12 KB of data ahead of everything linked after it,
// GiNaC's type names among them, so GiNaC's hash seeds (their addresses) and with them its
// term order differ from pamc's. tests/layout/check_layout.py compares the two outputs.
extern const char pamc_layout_pad[];
__attribute__((used)) const char pamc_layout_pad[12345] = {1};
