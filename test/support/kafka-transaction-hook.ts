// Test only: watches the Kafka transactions of this process (kafkajs is one module instance per
// process, so patching its client class reaches the producers the Kafka sink creates). It tells a
// listener when a transaction has sent its messages but not committed them (it is open: a kill there
// leaves it for the next run to abort), and when one has committed. weir-with-faults.ts uses it to
// crash inside a transaction and to count checkpoint points only once output is flowing.
import { Kafka, type Producer, type Transaction } from 'kafkajs'

export interface TransactionListener {
  /** The transaction's messages are sent and its marker is about to be; nothing of it is committed. */
  open?(n: number): void
  committed?(n: number): void
}

let opened = 0
let committed = 0

/** Installs the listener for every producer created from now on (once per process). */
export function watchKafkaTransactions(listener: TransactionListener): void {
  const producer = Kafka.prototype.producer
  Kafka.prototype.producer = function(this: Kafka, ...args: Parameters<Kafka['producer']>): Producer {
    const p = producer.apply(this, args)
    const transaction = p.transaction.bind(p)
    p.transaction = async (): Promise<Transaction> => {
      const tx = await transaction()
      const sendOffsets = tx.sendOffsets.bind(tx)
      const commit = tx.commit.bind(tx)
      return Object.assign(Object.create(tx) as Transaction, {
        sendOffsets: async (...a: Parameters<Transaction['sendOffsets']>) => {
          listener.open?.(++opened)
          return sendOffsets(...a)
        },
        commit: async () => {
          await commit()
          listener.committed?.(++committed)
        },
      })
    }
    return p
  }
}
