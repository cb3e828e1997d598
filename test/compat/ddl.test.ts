// The DDL and statement examples of Flink's documentation, run on Weir (see compat-case.ts). A case marked
// `fails` is expected to fail: when Weir learns it, its test fails until the mark is removed.
import { describeCases } from './describe-cases.js'
import { DDL } from './pages/index.js'

for (const page of DDL) describeCases(page.page, page, page.cases)
