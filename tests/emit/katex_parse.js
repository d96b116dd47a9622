// Reads a JSON list of {name, latex} from stdin and renders each with KaTeX in display
// mode, throwing on any error; prints one line per failure and exits 1 if there was one.
const katex = require(process.argv[2]);
let input = "";
process.stdin.on("data", (d) => (input += d));
process.stdin.on("end", () => {
  let failed = 0, count = 0;
  for (const { name, latex } of JSON.parse(input)) {
    count++;
    try {
      const html = katex.renderToString(latex, { displayMode: true, throwOnError: true, strict: "error" });
      if (!html.includes("katex-display")) throw new Error("no display math in the output");
    } catch (e) {
      failed++;
      console.log(`FAIL ${name}: ${e.message}`);
    }
  }
  console.log(`${count - failed} of ${count} LaTeX texts parse in KaTeX ${katex.version}`);
  process.exit(failed ? 1 : 0);
});
