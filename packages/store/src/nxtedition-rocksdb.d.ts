// Minimal typing of the parts of @nxtedition/rocksdb this project uses (the package ships none).
// Only packages/store/src/binding.ts imports the package.
declare module '@nxtedition/rocksdb' {
  export interface NxIteratorOptions {
    gt?: Buffer;
    gte?: Buffer;
    lt?: Buffer;
    lte?: Buffer;
    reverse?: boolean;
    limit?: number;
    keys?: boolean;
    values?: boolean;
    keyEncoding?: 'buffer';
    valueEncoding?: 'buffer';
    fillCache?: boolean;
  }
  export interface NxIterator {
    _nextvSync(size: number, options?: object): { rows: Buffer[]; finished: boolean };
    _closeSync(): void;
  }
  export interface NxChainedBatch {
    put(key: Buffer, value: Buffer): void;
    del(key: Buffer): void;
    /** The native put under abstract-level's `put` (no validation, no encoding, no op log). */
    _put(key: Buffer, value: Buffer, options?: object): void;
    /** The native delete under abstract-level's `del`. */
    _del(key: Buffer, options?: object): void;
    _writeSync(options?: object): void;
    _closeSync(): void;
    close(): Promise<void>;
    readonly length: number;
  }
  export class RocksLevel {
    constructor(location: string, options?: object);
    open(options?: object): Promise<void>;
    close(): Promise<void>;
    readonly status: string;
    _getManySync(keys: Buffer[], options?: object): (Buffer | undefined)[];
    _getManyAsync(keys: Buffer[], options?: object): Promise<(Buffer | null | undefined)[]>;
    iterator(options?: NxIteratorOptions): NxIterator;
    batch(): NxChainedBatch;
    getProperty(property: string): string;
    /** abstract-level: removes an iterator or batch from the set the db closes on close(). */
    detachResource(resource: NxIterator | NxChainedBatch): void;
  }
}
