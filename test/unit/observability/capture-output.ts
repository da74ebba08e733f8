import { vi } from 'vitest';

/**
 * Everything the process writes to stdout and stderr, line by line. Powertools' Logger and
 * Metrics write through their own `Console` on the process streams, so spying on `console`
 * would see none of it.
 */
export function captureOutput(): { lines: () => string[]; json: () => Record<string, unknown>[] } {
  const written: string[] = [];
  const capture = (chunk: unknown) => {
    written.push(String(chunk));
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture);
  const lines = () =>
    written
      .join('')
      .split('\n')
      .filter((line) => line.trim() !== '');
  const json = () => lines().flatMap((line) => (line.startsWith('{') ? [JSON.parse(line) as Record<string, unknown>] : []));
  return { lines, json };
}
