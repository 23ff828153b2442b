// The MDH extension's client: starts mdh-lsp over stdio for .mdh files.
// Everything language-specific happens in the server; this file only wires
// VS Code's settings to its command line.
'use strict';

const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');

let client;

function serverOptions() {
  const config = vscode.workspace.getConfiguration('mdh.server');
  const args = [];
  for (const dir of config.get('includeDirs', [])) args.push('-I', dir);
  args.push(...config.get('extraArgs', []));
  const command = config.get('path', 'mdh-lsp');
  return { command, args, transport: TransportKind.stdio };
}

async function start() {
  client = new LanguageClient('mdh', 'MDH language server', serverOptions(), {
    documentSelector: [
      { scheme: 'file', language: 'mdh' },
      { scheme: 'untitled', language: 'mdh' },
    ],
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher('**/*.mdh') },
  });
  await client.start();
}

async function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand('mdh.restartServer', async () => {
      if (client) await client.stop();
      await start();
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('mdh.server') && client) {
        await client.stop();
        await start();
      }
    }),
  );
  await start();
}

async function deactivate() {
  if (client) await client.stop();
}

module.exports = { activate, deactivate };
