import { describe, expect, it } from 'vitest';
import { escapeCsvCell, neutralizeFormula, unescapeFormula } from '../../../lib/platform/csv/csv-safety.ts';

describe('neutralizeFormula', () => {
  it.each([
    ['=SUM(A1)', "'=SUM(A1)"],
    ['+1', "'+1"],
    ['-2+3', "'-2+3"],
    ['@cmd', "'@cmd"],
    ['\t=1', "'\t=1"],
    ['\r=1', "'\r=1"],
    ['plain', 'plain'],
    ['a=b', 'a=b'],
    [' =1', ' =1'],
    ["'=1", "''=1"],
    ["'1", "'1"],
    ['', ''],
  ])('%j → %j', (text, expected) => {
    // Act / Assess
    expect(neutralizeFormula(text)).toBe(expected);
  });
});

describe('escapeCsvCell', () => {
  it.each<[string | number | boolean | null | undefined, string]>([
    ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
    ['-5', "'-5"],
    [-5, '-5'],
    [12.5, '12.5'],
    [0, '0'],
    [true, 'true'],
    [null, ''],
    [undefined, ''],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['@a,b', `"'@a,b"`],
    ['OIL-HV46', 'OIL-HV46'],
  ])('%j → %j', (value, expected) => {
    // Act / Assess
    expect(escapeCsvCell(value)).toBe(expected);
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY])('refuses %d', (value) => {
    // Act / Assess
    expect(() => escapeCsvCell(value)).toThrow(RangeError);
  });

  it('never yields a field that starts with a trigger character', () => {
    // Prepare
    const values = ['=', '+', '-', '@', '\t', '\r'].flatMap((trigger) => [trigger, `${trigger}x`, `${trigger}x,y`, `${trigger}"q"`]);

    // Act
    const fields = values.map((value) => escapeCsvCell(value).replace(/^"/, ''));

    // Assess
    expect(fields.every((field) => field.startsWith("'"))).toBe(true);
  });
});

describe('export then import (docs/exports.md "File formats")', () => {
  it.each(["'=x", "''=x", "'''+1", "'-", "'@a", "'\t1", "'x", "'", "''", '=x', '-5', 'plain', ''])('reads %j back unchanged', (text) => {
    // Act
    const readBack = unescapeFormula(neutralizeFormula(text));

    // Assess
    expect(readBack).toBe(text);
  });

  it('still reads a hand-written escape as the value it escapes', () => {
    // Act / Assess
    expect(unescapeFormula("'=SUM(A1)")).toBe('=SUM(A1)');
    expect(unescapeFormula("'plain")).toBe("'plain");
  });
});
