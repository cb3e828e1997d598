// The connector registry and plan-time option validation: unknown connectors and options with
// "did you mean" help, missing required options, and bad values naming the option.
import { describe, expect, it } from 'vitest'
import { T } from '../../common/types.js'
import { WeirError } from '../../common/errors.js'
import { connectorNames, getConnector } from '../../connectors/registry.js'
import { CONNECTOR_NAMES, importConnector, loadConnectors, loadedConnector } from '../../connectors/catalog.js'
import { editDistance } from '../../connectors/options.js'

function errorOf(fn: () => unknown): WeirError {
  try {
    fn()
  } catch (e) {
    if (e instanceof WeirError) return e
    throw e
  }
  throw new Error('expected an error')
}

describe('connector registry', () => {
  it('lists the connectors and finds each by name', () => {
    expect(connectorNames()).toEqual(['blackhole', 'datagen', 'filesystem', 'kafka', 'nexmark', 'print', 'upsert-kafka'])
    for (const name of connectorNames()) expect(getConnector(name).name).toBe(name)
    expect(getConnector('FileSystem').name).toBe('filesystem')
    expect(getConnector('nexmark').source).toBeDefined()
    expect(getConnector('print').sink).toBeDefined()
    expect(getConnector('print').source).toBeUndefined()
  })

  it('says which connector was meant, or lists them', () => {
    const typo = errorOf(() => getConnector('filesytem'))
    expect(typo.kind).toBe('connector')
    expect(typo.message).toBe(`unknown connector 'filesytem'`)
    expect(typo.help).toContain(`did you mean 'filesystem'?`)
    const unknown = errorOf(() => getConnector('hbase-2.2'))
    expect(unknown.help).toBe('known connectors: blackhole, datagen, filesystem, kafka, nexmark, print, upsert-kafka')
  })

  it('computes edit distances', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3)
    expect(editDistance('', 'abc')).toBe(3)
    expect(editDistance('same', 'same')).toBe(0)
  })
})

describe('option validation', () => {
  const fs = getConnector('filesystem')
  const schema = [{ name: 'id', type: T.int() }]

  it('rejects an unknown option with a did-you-mean help', () => {
    const e = errorOf(() => fs.source!.validate({ connector: 'filesystem', path: '/x', 'json.ignore-parse-error': 'true' }, schema))
    expect(e.message).toBe(`unsupported option 'json.ignore-parse-error' for connector 'filesystem'`)
    expect(e.help).toBe(`did you mean 'json.ignore-parse-errors'?`)
    const far = errorOf(() => fs.sink!.validate({ path: '/x', 'zzzzzzzzzzzz': '1' }, schema))
    expect(far.help).toContain(`the supported options are`)
    expect(far.help).toContain(`'path'`)
  })

  it('names missing required options', () => {
    const e = errorOf(() => fs.source!.validate({ connector: 'filesystem', format: 'json' }, schema))
    expect(e.message).toBe(`required option 'path' is missing for connector 'filesystem'`)
  })

  it('names the option and what it expects for a bad value', () => {
    const bool = errorOf(() => fs.source!.validate({ path: '/x', 'json.ignore-parse-errors': 'yes' }, schema))
    expect(bool.message).toBe(`invalid value 'yes' for option 'json.ignore-parse-errors': expected 'true' or 'false'`)
    const format = errorOf(() => fs.source!.validate({ path: '/x', format: 'jsno' }, schema))
    expect(format.message).toContain(`expected one of 'json', 'csv', 'debezium-json'`)
    expect(format.help).toBe(`did you mean 'json'?`)
    const rate = errorOf(() => getConnector('datagen').source!.validate({ 'rows-per-second': 'abc' }, schema))
    expect(rate.message).toBe(`invalid value 'abc' for option 'rows-per-second': expected a positive number`)
    const delimiter = errorOf(() => fs.source!.validate({ path: '/x', format: 'csv', 'csv.field-delimiter': ';;' }, schema))
    expect(delimiter.message).toContain('a single character')
  })

  it('rejects options of another format, and source monitoring', () => {
    const other = errorOf(() => fs.source!.validate({ path: '/x', format: 'json', 'csv.null-literal': 'N' }, schema))
    expect(other.message).toBe(`option 'csv.null-literal' applies to format 'csv', but 'format' is 'json'`)
    const monitor = errorOf(() => fs.source!.validate({ path: '/x', 'source.monitor-interval': '10 s' }, schema))
    expect(monitor.message).toContain('the filesystem source is bounded')
  })

  it('validates print and blackhole options', () => {
    expect(() => getConnector('print').sink!.validate({ connector: 'print', 'print-identifier': 'q', 'standard-error': 'false' }, schema)).not.toThrow()
    expect(errorOf(() => getConnector('print').sink!.validate({ 'print-identifer': 'q' }, schema)).help).toBe(`did you mean 'print-identifier'?`)
    // blackhole's one option is Flink's 'sink.parallelism' (it splits).
    expect(errorOf(() => getConnector('blackhole').sink!.validate({ foo: 'bar' }, schema)).help).toBe(
      `the supported options are 'sink.parallelism'`,
    )
    expect(() => getConnector('blackhole').sink!.validate({ connector: 'blackhole', 'sink.parallelism': '2' }, schema)).not.toThrow()
  })
})

describe('connector catalog (what a worker thread loads)', () => {
  it('names every connector of the registry, each to its own module, matched as the registry matches', async () => {
    expect(CONNECTOR_NAMES).toEqual(connectorNames())
    for (const name of connectorNames()) {
      expect(await importConnector(name)).toBe(getConnector(name))
      expect(await importConnector(` ${name.toUpperCase()} `)).toBe(getConnector(name))
    }
    expect(await importConnector('kafak')).toBeUndefined()
    await loadConnectors(['NEXMARK', 'kafak'])
    expect(loadedConnector('Nexmark')).toBe(getConnector('nexmark'))
    expect(() => loadedConnector('kafak')).toThrow(`connector 'kafak' is not loaded on this thread`)
  })
})
