// A scalar function in plain JavaScript, as the module's default export.
import { defineScalarFunction } from 'weir'

export default defineScalarFunction({ args: ['STRING'], returns: 'STRING', eval: s => s.split('').reverse().join('') })
