// Chevrotain, loaded from the single-file build its package ships (lib/chevrotain.mjs), not from its
// package entry: the entry is ESM spread over hundreds of lodash-es modules, ~0.7 s to import on this
// machine, the one-file build of the same version ~45 ms. The package's 'exports' name only the
// entry, so the file is found next to it. Everything Weir uses of Chevrotain at run time comes from
// here (one copy of its classes and token types); types still come from 'chevrotain'.
import type * as Chevrotain from 'chevrotain'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'

const entry = createRequire(import.meta.url).resolve('chevrotain') // …/chevrotain/lib/src/api.js
const chevrotain = (await import(new URL('../chevrotain.mjs', pathToFileURL(entry)).href)) as typeof Chevrotain

export const { createToken, CstParser, EOF, Lexer, tokenLabel, tokenMatcher } = chevrotain
