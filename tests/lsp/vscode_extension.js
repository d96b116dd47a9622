// Loads editors/vscode/extension.js with stand-ins for the `vscode` module and
// vscode-languageclient (neither exists outside VS Code), activates it with the settings
// given as JSON in argv[3], and prints the server command it would start as JSON:
// {"command": ..., "args": [...], "selector": [...]}. run_lsp.py then runs that command.
const Module = require("module");
const settings = JSON.parse(process.argv[3]);
let started = null;
const vscode = {
  workspace: {
    getConfiguration: (section) => ({
      get: (key, fallback) => (section + "." + key in settings ? settings[section + "." + key] : fallback),
    }),
    onDidChangeConfiguration: () => ({ dispose() {} }),
  },
};
class LanguageClient {
  constructor(id, name, server, client) {
    started = { command: server.command, args: server.args, selector: client.documentSelector };
  }
  start() { return Promise.resolve(); }
  stop() { return Promise.resolve(); }
}
const resolve = Module._load;
Module._load = function (request, parent, isMain) {
  if (request === "vscode") return vscode;
  if (request === "vscode-languageclient/node") return { LanguageClient };
  return resolve.apply(this, arguments);
};
const extension = require(process.argv[2]);
Promise.resolve(extension.activate({ subscriptions: [] })).then(() => {
  console.log(JSON.stringify(started));
});
