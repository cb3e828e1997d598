// CURRENT_WATERMARK(rowtime): the watermark of the operator evaluating it, as Flink's
// CurrentWatermarkInputTypeStrategy / CurrentWatermarkTypeStrategy type it. The compiler reads the
// watermark from its evaluation environment (see compiler.ts EvalEnv); only a Calc has one.
import { T, timeAttrOf } from '../../common/types.js'
import { typeName } from '../coercion.js'
import { checkArity, mkCall, type FunctionDef } from '../registry.js'

const SIGNATURE = 'CURRENT_WATERMARK(rowtime attribute)'

export const CURRENT_WATERMARK: FunctionDef = {
  names: ['CURRENT_WATERMARK'],
  signature: SIGNATURE,
  bind: (args, ctx) => {
    checkArity(args, 1, 1, ctx, SIGNATURE)
    const t = args[0]!.type
    if ((t.kind !== 'TIMESTAMP' && t.kind !== 'TIMESTAMP_LTZ') || timeAttrOf(t) !== 'rowtime') {
      throw ctx.error(
        `the argument of CURRENT_WATERMARK must be a rowtime attribute, but it is ${typeName(t)}`,
        'pass a column declared with WATERMARK FOR (or a window_time), e.g. CURRENT_WATERMARK(ts)',
      )
    }
    // Flink: the argument's type with precision 3, always nullable (NULL before the first watermark).
    const type = t.kind === 'TIMESTAMP' ? T.timestamp(3, true) : T.timestampLtz(3, true)
    return mkCall('CURRENT_WATERMARK', args, type, ctx.span)
  },
}
