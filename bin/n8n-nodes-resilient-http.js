#!/usr/bin/env node
// `npx n8n-nodes-resilient-http migrate <workflow.json | folder>`: see dist/cli/main.js (cli/main.ts).
'use strict';
process.exitCode = require('../dist/cli/main.js').main(process.argv.slice(2));
