// The connectors by name, each loaded when first needed. The job's thread loads them all (registry.ts,
// which the planner uses); a worker thread loads only those its job reads or writes, so it starts
// without the modules of connectors it never touches (about a quarter of what it would import).
import { WeirError } from '../common/errors.js'
import type { ConnectorFactory } from './api.js'

/** Each connector's module, by the name a table's 'connector' option gives. */
const MODULES: Readonly<Record<string, () => Promise<ConnectorFactory>>> = {
  blackhole: async () => (await import('./blackhole.js')).blackholeConnector,
  datagen: async () => (await import('./datagen.js')).datagenConnector,
  filesystem: async () => (await import('./filesystem/index.js')).filesystemConnector,
  kafka: async () => (await import('./kafka/index.js')).kafkaConnector,
  nexmark: async () => (await import('./nexmark/index.js')).nexmarkConnector,
  print: async () => (await import('./print.js')).printConnector,
  'upsert-kafka': async () => (await import('./kafka/sink/upsert.js')).upsertKafkaConnector,
}

const loaded = new Map<string, ConnectorFactory>()

/** The names of every connector, sorted. */
export const CONNECTOR_NAMES: readonly string[] = Object.keys(MODULES).sort()

/** A connector's name as written in a table's options, as Weir keys it: exact, else trimmed and lower-cased. */
export function connectorKey(name: string): string {
  return Object.hasOwn(MODULES, name) ? name : name.trim().toLowerCase()
}

/** Makes `factories` (already imported) available to `loadedConnector`. */
export function addConnectors(factories: readonly ConnectorFactory[]): void {
  for (const f of factories) loaded.set(f.name, f)
}

/** Imports the module of the connector called `name` (matched as `getConnector` matches), or undefined for an unknown name. */
export async function importConnector(name: string): Promise<ConnectorFactory | undefined> {
  const key = connectorKey(name)
  return Object.hasOwn(MODULES, key) ? MODULES[key]!() : undefined
}

/** Imports the connectors called `names` that are not loaded yet (unknown names are left to `loadedConnector` to report). */
export async function loadConnectors(names: Iterable<string>): Promise<void> {
  const missing = [...new Set([...names].map(connectorKey))].filter(n => !loaded.has(n))
  addConnectors((await Promise.all(missing.map(importConnector))).filter(f => f !== undefined))
}

/**
 * The connector called `name`, which this thread has loaded (`loadConnectors`, or registry.ts on the job's thread).
 *
 * @example loadedConnector('nexmark').source!.splittable // true
 */
export function loadedConnector(name: string): ConnectorFactory {
  const f = loaded.get(connectorKey(name))
  if (f === undefined) {
    throw WeirError.internal(`connector '${name}' is not loaded on this thread`, { help: 'this is a bug in Weir; please report it with the job' })
  }
  return f
}
