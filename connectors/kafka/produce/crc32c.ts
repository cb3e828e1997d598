// CRC-32C (Castagnoli), the checksum of Kafka's record batches (v2), eight bytes at a time ("slicing
// by 8"): a batch of a megabyte is checksummed in about a millisecond, which byte-wise tables (as in
// kafkajs) take several times longer for.

/** Reflected CRC-32C polynomial. */
const POLY = 0x82f63b78
/** TABLES[k][b]: the CRC of byte b followed by k zero bytes. */
const TABLES = (() => {
  const t = new Int32Array(8 * 256)
  for (let b = 0; b < 256; b++) {
    let c = b
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLY : c >>> 1
    t[b] = c
  }
  for (let b = 0; b < 256; b++) {
    for (let k = 1; k < 8; k++) t[k * 256 + b] = (t[(k - 1) * 256 + b]! >>> 8) ^ t[t[(k - 1) * 256 + b]! & 0xff]!
  }
  return t
})()

/** CRC-32C of buf[start, end), unsigned. */
export function crc32c(buf: Uint8Array, start = 0, end = buf.length): number {
  const t = TABLES
  let crc = -1
  let i = start
  for (; i + 8 <= end; i += 8) {
    const a = crc ^ (buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24))
    crc = t[7 * 256 + (a & 0xff)]! ^ t[6 * 256 + ((a >>> 8) & 0xff)]! ^ t[5 * 256 + ((a >>> 16) & 0xff)]! ^ t[4 * 256 + (a >>> 24)]!
      ^ t[3 * 256 + buf[i + 4]!]! ^ t[2 * 256 + buf[i + 5]!]! ^ t[256 + buf[i + 6]!]! ^ t[buf[i + 7]!]!
  }
  for (; i < end; i++) crc = t[(crc ^ buf[i]!) & 0xff]! ^ (crc >>> 8)
  return (crc ^ -1) >>> 0
}
