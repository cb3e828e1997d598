// The sockets Weir gives kafkajs: each 'data' event one whole response, whatever the reads' sizes.
import { describe, expect, it } from 'vitest'
import { ResponseFramer } from '../../connectors/kafka/framed-socket.js'

function response(size: number, fill: number): Buffer {
  const b = Buffer.alloc(4 + size, fill)
  b.writeInt32BE(size, 0)
  return b
}

/** Feeds `bytes` to a framer in reads cut at `cuts`, through one reused read buffer as a socket does. */
function feed(bytes: Buffer, cuts: number[]): { frames: Buffer[]; destroyed: Error | null } {
  const frames: Buffer[] = []
  let destroyed: Error | null = null
  const framer = new ResponseFramer()
  framer.socket = { emit: (_, f) => frames.push(f), destroy: e => (destroyed = e) }
  const scratch = Buffer.alloc(bytes.length)
  let at = 0
  for (const cut of [...cuts, bytes.length]) {
    const end = Math.min(cut, bytes.length)
    if (end <= at) continue
    bytes.copy(scratch, 0, at, end)
    framer.read(scratch, end - at)
    scratch.fill(0xee, 0, end - at) // the next read overwrites the buffer: nothing may still point into it
    at = end
  }
  return { frames, destroyed }
}

/** The frames as [length, first byte, equal to the expected frame] (toEqual on large Buffers is slow). */
function shape(frames: Buffer[], expected: Buffer[]): [number, number, boolean][] {
  return frames.map((f, i) => [f.length, f[4] ?? -1, expected[i] !== undefined && f.equals(expected[i]!)])
}

describe('ResponseFramer', () => {
  const stream = Buffer.concat([response(0, 1), response(3, 2), response(70_000, 3), response(1, 4), response(5, 5)])
  const expected = [response(0, 1), response(3, 2), response(70_000, 3), response(1, 4), response(5, 5)]

  it('emits each response whole, once, in order, for reads cut anywhere (size prefixes split too)', () => {
    expect(shape(feed(stream, []).frames, expected)).toEqual(shape(expected, expected))
    for (let cut = 1; cut < 16; cut++) expect(shape(feed(stream, [cut, cut + 1, cut + 5]).frames, expected)).toEqual(shape(expected, expected))
    let seed = 1
    for (let round = 0; round < 40; round++) {
      const cuts: number[] = []
      for (let at = 0; at < stream.length;) cuts.push(at += 1 + ((seed = (seed * 48271) % 2147483647) % (round % 2 === 0 ? 9 : 20_000)))
      expect(shape(feed(stream, cuts).frames, expected)).toEqual(shape(expected, expected))
    }
  })

  it('keeps a partial response until its last byte comes', () => {
    const { frames } = feed(stream.subarray(0, stream.length - 1), [100, 5000])
    expect(shape(frames, expected)).toEqual(shape(expected.slice(0, 4), expected))
  })

  it('closes the connection on a negative size: the stream is not Kafka', () => {
    const bad = Buffer.from([0xff, 0xff, 0xff, 0xfe, 1, 2, 3])
    const { frames, destroyed } = feed(bad, [2])
    expect(frames).toEqual([])
    expect((destroyed as Error | null)?.message).toMatch(/response of -2 bytes/)
  })
})
