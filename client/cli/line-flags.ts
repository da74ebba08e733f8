import { readFile } from 'node:fs/promises';
import { UsageError } from './context.ts';

/**
 * The `--line name=value,…` flags of the commands that send lines (stock changes, reservations;
 * docs/client.md#cli; `builds submit` names its lines `--source`), and their `--file BODY.json`
 * alternative. The server checks the values
 * themselves; the CLI only checks each part is known, the required ones are there and numbers are
 * numbers.
 */

/** A `--line` part: the body field it fills and how its value is read (`expected`: a number or `null`). */
export interface LineField {
  field: string;
  value: 'text' | 'number' | 'expected';
  required: boolean;
}

/** `sku=WIDGET,location=A1,quantity=3[,lot=L1]`, as `fields` names the parts; `option` is the flag's name in messages. */
export function lineOf(flag: string, fields: Record<string, LineField>, option = '--line'): Record<string, unknown> {
  const parts = new Map<string, string>();
  for (const part of flag.split(',')) {
    const separator = part.indexOf('=');
    if (separator <= 0) throw new UsageError(`${option} ${flag}: each part is name=value.`);
    parts.set(part.slice(0, separator).trim(), part.slice(separator + 1).trim());
  }
  const names = Object.keys(fields);
  const unknown = [...parts.keys()].filter((name) => !names.includes(name));
  if (unknown.length > 0) throw new UsageError(`${option} ${flag}: unknown ${unknown.join(', ')} (${names.join(', ')}).`);
  const missing = names.filter((name) => fields[name]?.required && !parts.has(name));
  if (missing.length > 0)
    throw new UsageError(`${option} ${flag}: ${missing.join(', ')} required${missing.includes('expected') ? ' (expected=null opts out of the check)' : ''}.`);
  const line: Record<string, unknown> = {};
  for (const [name, raw] of parts) {
    const { field, value } = fields[name] as LineField;
    line[field] = value === 'text' ? raw : value === 'expected' && raw === 'null' ? null : numberOf(option, flag, name, raw);
  }
  return line;
}

/** A request body as the API takes it, from a JSON file. */
export async function bodyOfFile<Body>(file: string): Promise<Body> {
  try {
    // The server checks the body: the CLI sends it as written.
    return JSON.parse(await readFile(file, 'utf8')) as Body;
  } catch (error) {
    throw new UsageError(`--file ${file}: ${(error as Error).message}`);
  }
}

function numberOf(option: string, flag: string, name: string, value: string): number {
  if (!/^-?[0-9]+(\.[0-9]+)?$/.test(value)) throw new UsageError(`${option} ${flag}: ${name} must be a number, not '${value}'.`);
  return Number(value);
}
