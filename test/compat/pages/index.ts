// Every page of the compatibility suite, by the part of Flink's documentation it comes from.
import type { CompatPage } from '../compat-case.js'
import { DDL_PAGES } from './ddl.js'
import { MORE_QUERY_PAGES } from './queries.js'
import { WINDOW_PAGES } from './window-tvf.js'

export const QUERY_PAGES: readonly CompatPage[] = [...WINDOW_PAGES, ...MORE_QUERY_PAGES]

export const DDL: readonly CompatPage[] = DDL_PAGES
