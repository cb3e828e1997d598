// Test only: watches the Kafka transactions of this process (the sink's producer class is one module
// instance per process, so patching its prototype reaches the producers the Kafka sink creates). It
// tells a listener when a transaction has sent its messages but not committed them (it is open: a kill
// there leaves it for the next run to abort), and when one has committed. weir-with-faults.ts uses it
// to crash inside a transaction and to count checkpoint points only once output is flowing.
import { RecordProducer } from '../../connectors/kafka/produce/producer.js'

export interface TransactionListener {
  /** The transaction's messages are sent and its marker is about to be; nothing of it is committed. */
  open?(n: number): void
  committed?(n: number): void
}

let opened = 0
let committed = 0

/** Installs the listener for every producer (once per process). */
export function watchKafkaTransactions(listener: TransactionListener): void {
  const { sendOffsets, commitTransaction } = RecordProducer.prototype
  // The sink sends a transaction's marker (sendOffsets) after its messages and before its commit.
  RecordProducer.prototype.sendOffsets = async function(this: RecordProducer, ...a: Parameters<RecordProducer['sendOffsets']>) {
    listener.open?.(++opened)
    return sendOffsets.apply(this, a)
  }
  RecordProducer.prototype.commitTransaction = async function(this: RecordProducer) {
    await commitTransaction.apply(this)
    listener.committed?.(++committed)
  }
}
