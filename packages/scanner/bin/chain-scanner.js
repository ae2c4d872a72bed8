#!/usr/bin/env node
// The scanner's operator CLI as the package's bin (`npx chain-scanner <command>`): the built
// entry point, packages/scanner/dist/cli.js (`npm run build` first). A committed file, so npm
// links the bin at install time, before anything is built.
import '../dist/cli.js';
