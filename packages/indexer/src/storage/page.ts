/**
 * A page walk over a view, as readers see it: the anchor block rows are read as of (R2: a cursor
 * keeps its anchor), the resume key of the previous page, the order and the row cap. Readers push
 * rows into a {@link PageSink} in walk order until it refuses one; the server turns the last
 * accepted key into the next cursor. The serialized-size bound (4 MiB) is the sink's to apply.
 */

/** What one page of a reader walk asks for. */
export interface PageQuery {
  /** Anchor block: rows are read as of the end of this block. */
  at: number;
  /** Opaque resume key of the previous page (the reader's own key bytes), or null on page one. */
  after: Buffer | null;
  order: 'asc' | 'desc';
  /** Rows wanted (the sink may stop earlier on its byte budget). */
  limit: number;
}

/**
 * Receives a page's rows in walk order. `row === null` is a row that takes its place in the page
 * but is filtered from the output (filters never change paging). Returns false when the page is
 * full: the row was not taken and the walk must stop (the next page starts at this row).
 */
export type PageSink<R> = (row: R | null, resumeKey: Buffer) => boolean;
