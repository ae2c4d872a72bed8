/**
 * Row types of the chain records' own tables (src/schema/tables/chain.ts).
 */

/**
 * A block's roots check (workers/decode/roots.ts): its records rebuilt the header's transactions
 * and receipts roots (`verified`), could not all be encoded (`not_checkable`, with what the encoder
 * does not know), or were not checked (`unchecked`: VERIFY_ROOTS=off).
 */
export type RootsCheck =
  | { status: 'verified' }
  | {
      status: 'not_checkable';
      /** What the encoder does not know: transaction types (`0x65`), or `header:<field>`. */
      types: string[];
      /** The checks left undone. */
      unchecked: Array<'header' | 'transactions' | 'receipts'>;
    }
  | { status: 'unchecked' };
