/**
 * Renames one symbol everywhere TypeScript sees it (issue 32, design §9 "Symbol renames"): the
 * language service's own rename locations over the root project and the console's, so a rename
 * is exactly what an editor's "rename symbol" does, tests and console included. One symbol per
 * run (and per commit); `npx tsc --noEmit` afterwards says whether anything was missed (a
 * property named in a string literal, as in `Pick<Task, 'old'>`, is one such place).
 *
 * Run: npx tsx bin/codemods/rename-symbol.ts FILE SYMBOL NEW_NAME [--nth N]
 *   FILE: where the symbol is declared; SYMBOL: its name there (the Nth occurrence as an
 *   identifier, default the first); NEW_NAME: the name it gets.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(__dirname, '..', '..');

function languageService(configFile: string): ts.LanguageService {
  const config = ts.getParsedCommandLineOfConfigFile(configFile, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); } });
  if (!config) throw new Error(`Cannot read ${configFile}.`);
  const host: ts.LanguageServiceHost = {
    getCompilationSettings: () => config.options,
    getScriptFileNames: () => config.fileNames,
    getScriptVersion: () => '1',
    getScriptSnapshot: (file) => (ts.sys.fileExists(file) ? ts.ScriptSnapshot.fromString(ts.sys.readFile(file) ?? '') : undefined),
    getCurrentDirectory: () => path.dirname(configFile),
    getDefaultLibFileName: ts.getDefaultLibFilePath,
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  };
  return ts.createLanguageService(host, ts.createDocumentRegistry());
}

/** The position of the `nth` identifier named `symbol` in `file`. */
function positionOf(file: string, symbol: string, nth: number): number {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: number[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node) && node.text === symbol) found.push(node.getStart(source));
    ts.forEachChild(node, visit);
  };
  visit(source);
  const position = found[nth - 1];
  if (position === undefined) throw new Error(`${path.relative(ROOT, file)} has ${found.length} identifier(s) named ${symbol}, not ${nth}.`);
  return position;
}

function main(argv: string[]): void {
  const nthAt = argv.indexOf('--nth');
  const nth = nthAt === -1 ? 1 : Number(argv.splice(nthAt, 2)[1]);
  const [fileArg, symbol, newName] = argv;
  if (!fileArg || !symbol || !newName || !Number.isInteger(nth) || nth < 1) {
    throw new Error('Usage: npx tsx bin/codemods/rename-symbol.ts FILE SYMBOL NEW_NAME [--nth N]');
  }
  const file = path.resolve(fileArg);
  const position = positionOf(file, symbol, nth);
  // Edits per file, from every project that sees the file (a type the console imports too).
  // A shorthand property or an import keeps its other side: `{ old }` becomes `{ old: renamed }`.
  const edits = new Map<string, Map<number, string>>();
  for (const config of ['tsconfig.json', 'console/tsconfig.json'].map((name) => path.join(ROOT, name))) {
    if (!ts.sys.fileExists(config)) continue;
    const service = languageService(config);
    if (!service.getProgram()?.getSourceFile(file)) continue;
    for (const location of service.findRenameLocations(file, position, false, false, { providePrefixAndSuffixTextForRename: true }) ?? []) {
      const starts = edits.get(location.fileName) ?? new Map<number, string>();
      starts.set(location.textSpan.start, `${location.prefixText ?? ''}${newName}${location.suffixText ?? ''}`);
      edits.set(location.fileName, starts);
    }
  }
  if (edits.size === 0) throw new Error(`TypeScript finds nothing to rename at ${symbol} in ${path.relative(ROOT, file)}.`);
  let count = 0;
  for (const [target, starts] of edits) {
    let text = readFileSync(target, 'utf8');
    // From the end, so earlier offsets stay valid.
    for (const [start, replacement] of [...starts].sort(([a], [b]) => b - a)) {
      if (text.slice(start, start + symbol.length) !== symbol) throw new Error(`${target}:${start} is not ${symbol}.`);
      text = text.slice(0, start) + replacement + text.slice(start + symbol.length);
      count += 1;
    }
    writeFileSync(target, text);
  }
  process.stdout.write(`${symbol} -> ${newName}: ${count} places in ${edits.size} files\n`);
}

main(process.argv.slice(2));
