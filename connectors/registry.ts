// The connectors Weir knows, by the name a table's 'connector' option gives, all loaded (the planner's view;
// catalog.ts loads them one by one for worker threads).
import { WeirError } from '../common/errors.js'
import type { ConnectorFactory } from './api.js'
import { addConnectors, connectorKey } from './catalog.js'
import { blackholeConnector } from './blackhole.js'
import { datagenConnector } from './datagen.js'
import { filesystemConnector } from './filesystem/index.js'
import { kafkaConnector } from './kafka/index.js'
import { upsertKafkaConnector } from './kafka/sink/upsert.js'
import { nexmarkConnector } from './nexmark/index.js'
import { closest } from './options.js'
import { printConnector } from './print.js'

const ALL = [blackholeConnector, datagenConnector, filesystemConnector, kafkaConnector, nexmarkConnector, printConnector, upsertKafkaConnector]
const CONNECTORS: ReadonlyMap<string, ConnectorFactory> = new Map(ALL.map(c => [c.name, c]))
// The job's thread has every connector; the runtime's modules look them up in the catalog (a worker loads only its own).
addConnectors(ALL)

/**
 * The connector called `name` (exact, then ignoring case); throws a connector error naming the
 * closest known one otherwise.
 *
 * @example getConnector('filesystem').source!.validate({ path: 'data.json' }, schema)
 */
export function getConnector(name: string): ConnectorFactory {
  const exact = CONNECTORS.get(connectorKey(name))
  if (exact !== undefined) return exact
  const guess = closest(name, CONNECTORS.keys())
  throw WeirError.connector(`unknown connector '${name}'`, {
    help: guess !== undefined
      ? `did you mean '${guess}'? (known connectors: ${connectorNames().join(', ')})`
      : `known connectors: ${connectorNames().join(', ')}`,
  })
}

/** Names of the known connectors, sorted. */
export function connectorNames(): string[] {
  return [...CONNECTORS.keys()].sort()
}
