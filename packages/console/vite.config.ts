/**
 * Build of the browser console (served by the indexer at `/`, packages/indexer/src/server/static.ts): Preact with
 * plain JSX through Vite's own transformer, no plugin; output in dist/console at the repository
 * root (where the indexer serves it from). The typed client is the @chain-indexer/client package
 * (its dist/, built by `tsc -b` before this).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../../dist/console', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: true,
    target: 'es2022',
    chunkSizeWarningLimit: 400,
  },
  server: {
    // `npm run console:dev` against a running indexer on 8080.
    proxy: {
      '/index': 'http://127.0.0.1:8080',
      '/health': 'http://127.0.0.1:8080',
      '/console': 'http://127.0.0.1:8080',
    },
  },
});
