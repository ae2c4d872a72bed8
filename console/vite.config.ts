/**
 * Build of the browser console (served by the indexer at `/`, src/server/static.ts): Preact with
 * plain JSX through Vite's own transformer, no plugin; output in dist/console.
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
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: true,
    target: 'es2022',
    chunkSizeWarningLimit: 400,
  },
  server: {
    // `npx vite --config console/vite.config.ts` against a running indexer on 8080.
    proxy: {
      '/index': 'http://127.0.0.1:8080',
      '/health': 'http://127.0.0.1:8080',
      '/console': 'http://127.0.0.1:8080',
    },
  },
});
