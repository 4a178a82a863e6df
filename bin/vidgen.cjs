#!/usr/bin/env node
// `npx vidgen` (package.json "bin"): runs the TypeScript CLI through this repository's tsx, from any folder.
require('tsx/cjs/api').register();
require('./vidgen.ts');
