// The built-in functions' documented examples (pages/functions.ts), each as `SELECT <expr>`: a case
// marked `fails` is expected to fail, so that a fix flips it.
import { functionCases } from './compat-case.js'
import { describeCases } from './describe-cases.js'
import { FUNCTION_EXAMPLES } from './pages/functions.js'

const PAGE = { page: 'functions/systemFunctions.md', cases: [] }

for (const [family, examples] of Object.entries(FUNCTION_EXAMPLES)) describeCases(`built-in functions: ${family}`, PAGE, functionCases(examples))
