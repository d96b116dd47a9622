// Starts `pamc lsp` for Pamela files (docs/editors.md): diagnostics, hover with closed
// forms, go to definition, references, completion, the outline and values at the defaults
// as inlay hints come from the server. The client is Microsoft's vscode-languageclient.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function serverOptions(config) {
  const args = ["lsp"];
  for (const dir of config.get("includeDirs", [])) args.push("-I", dir);
  for (const machine of config.get("machines", [])) args.push("--machine", machine);
  args.push("--time-budget", String(config.get("timeBudgetMs", 2000)));
  args.push("--debounce", String(config.get("debounceMs", 200)));
  return { command: config.get("server.path", "pamc"), args };
}

async function start() {
  const config = vscode.workspace.getConfiguration("pamela");
  client = new LanguageClient("pamela", "Pamela (pamc lsp)", serverOptions(config), {
    documentSelector: [{ scheme: "file", language: "pamela" }],
  });
  await client.start();
}

function activate(context) {
  // A changed setting (another pamc, other machines) restarts the server with it.
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (!event.affectsConfiguration("pamela") || !client) return;
      await client.stop();
      await start();
    })
  );
  return start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
