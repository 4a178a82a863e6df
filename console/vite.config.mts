import { readFileSync } from 'node:fs';
import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The console's build. Served under /console/ (the local stack and CloudFront alike), so `base`
 * is that path; runtime settings come from /console/config.json, never from the build, so one
 * build serves every stage.
 *
 * The playground's form is drawn from the request schemas of the published OpenAPI document,
 * picked out here so the bundle carries those two schemas and not the whole 200 KB document.
 */
const document = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../docs/openapi.json'), 'utf8')) as {
  components: { schemas: Record<string, unknown> };
};
const requestSchemas = {
  video: document.components.schemas.GenerateVideoRequest,
  image: document.components.schemas.GenerateImageRequest,
};

export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  plugins: [react()],
  define: { __REQUEST_SCHEMAS__: JSON.stringify(requestSchemas) },
  build: {
    outDir: 'dist/current',
    emptyOutDir: true,
    // A build whose sources did not change is not rebuilt (bin/local-stack/console-build.ts): the manifest lists the chunks for the benchmark.
    manifest: true,
    reportCompressedSize: false,
    target: 'es2022',
  },
});
