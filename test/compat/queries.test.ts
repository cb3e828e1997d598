// The query examples of Flink's documentation, run on Weir (see compat-case.ts). A case marked
// `fails` is expected to fail: when Weir learns it, its test fails until the mark is removed.
import { describeCases } from './describe-cases.js'
import { QUERY_PAGES } from './pages/index.js'

for (const page of QUERY_PAGES) describeCases(page.page, page, page.cases)
