#!/usr/bin/env node
// The `weir` command; the TypeScript sources are compiled to dist/ by `npm ci` (prepare) or `npm run build`.
import { weir } from '../dist/cli/main.js'

weir(process.argv.slice(2))
