// Message digests of a string's UTF-8 bytes, as lower-case hex (Flink's MD5, SHA1, SHA224…SHA512, SHA2).
import { createHash } from 'node:crypto'
import { WeirError } from '../../common/errors.js'
import { T } from '../../common/types.js'
import { javaBytes } from './text.js'
import { literalValue, simple, strict, type CallRex, type FunctionDef } from '../registry.js'

const SHA2_BITS = new Set([224, 256, 384, 512])

function digest(algorithm: string): (s: string) => string {
  return s => createHash(algorithm).update(javaBytes(s)).digest('hex')
}

function hashFunction(name: string, algorithm: string): FunctionDef {
  return simple([name], `${name}(STRING)`, ['STRING'], 1, () => T.string(), strict(digest(algorithm)))
}

function sha2(call: CallRex): (s: string, bits: number) => string {
  return (s, bits) => {
    if (!SHA2_BITS.has(bits)) {
      throw new WeirError('execution', `SHA2: unsupported hash length ${bits}`, { span: call.span, help: 'the length must be 224, 256, 384 or 512' })
    }
    return createHash(`sha${bits}`).update(javaBytes(s)).digest('hex')
  }
}

const SHA2 = simple(['SHA2'], 'SHA2(STRING, 224 | 256 | 384 | 512)', ['STRING', 'INTEGER'], 2, () => T.string(), call => ({ fn: sha2(call), nulls: 'strict' }))

export const HASH: readonly FunctionDef[] = [
  hashFunction('MD5', 'md5'),
  hashFunction('SHA1', 'sha1'),
  hashFunction('SHA224', 'sha224'),
  hashFunction('SHA256', 'sha256'),
  hashFunction('SHA384', 'sha384'),
  hashFunction('SHA512', 'sha512'),
  {
    ...SHA2,
    // A constant length outside the four is refused where it is written (Flink refuses it too).
    bind: (args, ctx) => {
      const r = SHA2.bind(args, ctx)
      const bits = literalValue(args[1])
      if ((typeof bits === 'number' || typeof bits === 'bigint') && !SHA2_BITS.has(Number(bits))) {
        throw ctx.error(`SHA2 does not support the hash length ${bits}`, 'the length must be 224, 256, 384 or 512')
      }
      return r
    },
  },
]
