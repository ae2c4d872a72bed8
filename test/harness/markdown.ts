/** Markdown the fault and soak reports share. */

/**
 * `## title`, then a one-row table of `count(kind)` under each of `kinds`, blank lines around; no
 * lines when there is no kind.
 */
export function countsByKind(
  title: string,
  kinds: readonly string[],
  count: (kind: string) => number,
): string[] {
  if (!kinds.length) return [];
  return [
    `## ${title}`,
    '',
    `| ${kinds.join(' | ')} |`,
    `|${kinds.map(() => '---:').join('|')}|`,
    `| ${kinds.map(count).join(' | ')} |`,
    '',
  ];
}
