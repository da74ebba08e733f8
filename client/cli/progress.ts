/**
 * Progress of long work (docs/client.md#cli): a bar redrawn in place on a terminal, plain lines
 * (one per change) when the output is a pipe or a file, so logs stay readable.
 */
export interface ProgressReporter {
  update(done: number, total: number, label: string): void;
  finish(): void;
}

const BAR_WIDTH = 30;

export function progressReporter(stream: { write(text: string): unknown }, interactive: boolean): ProgressReporter {
  let last = '';
  let drawn = false;
  return {
    update(done, total, label) {
      const text = interactive ? barLine(done, total, label) : plainLine(done, total, label);
      if (text === last) return;
      last = text;
      if (interactive) {
        stream.write(`\r\x1b[2K${text}`);
        drawn = true;
      } else {
        stream.write(`${text}\n`);
      }
    },
    finish() {
      if (drawn) stream.write('\n');
      drawn = false;
    },
  };
}

function percent(done: number, total: number): number {
  return total > 0 ? Math.floor((Math.min(done, total) / total) * 100) : 0;
}

export function barLine(done: number, total: number, label: string): string {
  const filled = total > 0 ? Math.round((Math.min(done, total) / total) * BAR_WIDTH) : 0;
  const bar = `${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}`;
  const counts = total > 0 ? ` ${percent(done, total)}% ${done}/${total} rows` : '';
  return `[${bar}]${counts} ${label}`;
}

export function plainLine(done: number, total: number, label: string): string {
  return total > 0 ? `${label} ${done}/${total} rows (${percent(done, total)}%)` : label;
}
