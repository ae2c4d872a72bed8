/**
 * Bounded collection of a walk's rows: the one rule the list readers share (skip filtered rows,
 * keep up to the bound, stop at the first row past it and say the list was cut).
 */

/** A collector of at most `bound` rows (see {@link boundedRows}). */
export interface BoundedRows<R> {
  /** The rows kept, in visit order. */
  readonly rows: R[];
  /** True once a row past the bound was visited. */
  readonly cut: boolean;
  /** Visits a row: null (filtered) is skipped; returns false to stop the walk. */
  visit(row: R | null): boolean;
}

/** A collector that keeps at most `bound` rows of a walk; it throws nothing. */
export function boundedRows<R>(bound: number): BoundedRows<R> {
  const rows: R[] = [];
  let cut = false;
  return {
    rows,
    get cut() {
      return cut;
    },
    visit(row) {
      if (row === null) return true;
      if (rows.length >= bound) {
        cut = true;
        return false;
      }
      rows.push(row);
      return true;
    },
  };
}
