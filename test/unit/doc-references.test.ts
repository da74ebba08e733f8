import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Comments may cite only what a reader of this repository can open: a doc under docs/ (and, best,
// the section of it that states the rule), or nothing at all with the rule stated in plain words.
// The planning documents the project started from are not in the repository, so a comment citing
// them (or a numbered rule list, or a bare issue number) points nowhere. Only comments are
// checked; strings (test titles included) are runtime values and out of scope.
//
// The forbidden words are assembled from pieces below, so this file never matches its own check.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ROOTS = ['lib', 'functions', 'infra', 'local', 'scripts', 'bench', 'test', 'eslint.config.js'];
const SOURCE_FILE = /\.(ts|js|java|sh)$/;

const join2 = (...parts: string[]) => parts.join('');
const FORBIDDEN: Array<{ what: string; pattern: RegExp }> = [
  { what: 'the product document', pattern: new RegExp(`\\b${join2('PROD', 'UCT')}\\b`) },
  { what: 'the architecture document (use docs/architecture.md)', pattern: new RegExp(`\\b${join2('ARCHI', 'TECTURE')}\\b`) },
  { what: 'the specification the project started from', pattern: new RegExp(`\\b${join2('se', 'ed')}\\s*(§|:)|\\bthe ${join2('se', 'ed')}\\b`, 'i') },
  { what: 'a numbered rule list', pattern: new RegExp(`\\b${join2('hou', 'se')} rules?\\b`, 'i') },
  { what: 'an issue number without its tracker', pattern: new RegExp(`\\b${join2('iss', 'ue')} #?\\d+`, 'i') },
];

/** `docs/<file>.md`, optionally followed by `#anchor` or a quoted section title ("Rate limits"). */
const DOC_REFERENCE = /\bdocs\/([\w.-]+\.md)(?:#([\w-]+)|[\s*/]*"([^"]+)")?/g;

interface SourceComment {
  line: number;
  text: string;
}

interface Finding {
  at: string;
  problem: string;
}

function trackedSourceFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', ...ROOTS], { cwd: ROOT, encoding: 'utf8' });
  return [...new Set(listed.split('\0'))].filter((file) => SOURCE_FILE.test(file) && existsSync(join(ROOT, file))).sort();
}

function lineAt(text: string, position: number): number {
  let line = 1;
  for (let index = text.indexOf('\n'); index !== -1 && index < position; index = text.indexOf('\n', index + 1)) line += 1;
  return line;
}

/** Comments of TypeScript and JavaScript, from the parsed tree (regex literals and templates are no trap). */
function parsedComments(file: string, text: string): SourceComment[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith('.js') ? ts.ScriptKind.JS : ts.ScriptKind.TS);
  const ranges = new Map<number, ts.CommentRange>();
  const collect = (found: ts.CommentRange[] | undefined) => {
    for (const range of found ?? []) ranges.set(range.pos, range);
  };
  const visit = (node: ts.Node) => {
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()));
    collect(ts.getTrailingCommentRanges(text, node.getEnd()));
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return [...ranges.values()].map((range) => ({ line: lineAt(text, range.pos), text: text.slice(range.pos, range.end) }));
}

/** Comments of Java (same comment syntax, no regex literals): the scanner alone is enough. */
function scannedComments(text: string): SourceComment[] {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  const comments: SourceComment[] = [];
  for (let token = scanner.scan(); token !== ts.SyntaxKind.EndOfFileToken; token = scanner.scan()) {
    if (token === ts.SyntaxKind.SingleLineCommentTrivia || token === ts.SyntaxKind.MultiLineCommentTrivia) {
      comments.push({ line: lineAt(text, scanner.getTokenStart()), text: scanner.getTokenText() });
    }
  }
  return comments;
}

/** Comments of shell scripts: from a `#` at the start of a line or after whitespace (not the shebang). */
function shellComments(text: string): SourceComment[] {
  return text.split('\n').flatMap((content, index) => {
    const start = content.search(/(^|\s)#/);
    if (start === -1 || (index === 0 && content.startsWith('#!'))) return [];
    return [{ line: index + 1, text: content.slice(start) }];
  });
}

function commentsOf(file: string, text: string): SourceComment[] {
  if (file.endsWith('.sh')) return shellComments(text);
  if (file.endsWith('.java')) return scannedComments(text);
  return parsedComments(file, text);
}

function forbiddenCitations(file: string, text: string): Finding[] {
  return commentsOf(file, text).flatMap((comment) =>
    comment.text.split('\n').flatMap((content, offset) =>
      FORBIDDEN.filter(({ pattern }) => pattern.test(content)).map(({ what }) => ({
        at: `${file}:${comment.line + offset}`,
        problem: `cites ${what}: ${content.trim()}`,
      })),
    ),
  );
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, each space a hyphen. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

const headingCache = new Map<string, string[]>();

/** The headings of a doc, outside fenced code blocks. */
function headingsOf(doc: string): string[] {
  const cached = headingCache.get(doc);
  if (cached) return cached;
  let fenced = false;
  const headings: string[] = [];
  for (const content of readFileSync(join(ROOT, 'docs', doc), 'utf8').split('\n')) {
    if (content.startsWith('```')) fenced = !fenced;
    const heading = /^#{1,6}\s+(.+?)\s*$/.exec(content);
    if (!fenced && heading?.[1]) headings.push(heading[1]);
  }
  headingCache.set(doc, headings);
  return headings;
}

function namesSection(heading: string, title: string): boolean {
  const plain = heading.replaceAll('`', '');
  const wanted = title.replaceAll('`', '');
  return plain.startsWith(wanted) && (plain.length === wanted.length || /[^\p{L}\p{N}]/u.test(plain.charAt(wanted.length)));
}

function brokenDocReferences(file: string, text: string): Finding[] {
  return commentsOf(file, text).flatMap((comment) =>
    [...comment.text.matchAll(DOC_REFERENCE)].flatMap((match) => {
      const [reference = '', doc = '', anchor, quoted] = match;
      const at = `${file}:${comment.line + lineAt(comment.text, match.index) - 1}`;
      if (!existsSync(join(ROOT, 'docs', doc))) return [{ at, problem: `docs/${doc} does not exist` }];
      const headings = headingsOf(doc);
      if (anchor !== undefined && !headings.some((heading) => anchorOf(heading) === anchor)) {
        return [{ at, problem: `docs/${doc} has no heading with the anchor #${anchor}` }];
      }
      const title = quoted?.replace(/\s*\n\s*(\*(?!\/)|\/\/)?\s*/g, ' ').trim();
      if (title !== undefined && !headings.some((heading) => namesSection(heading, title))) {
        return [{ at, problem: `docs/${doc} has no section "${title}" (${reference.replace(/\s+/g, ' ')})` }];
      }
      return [];
    }),
  );
}

function scanSources(check: (file: string, text: string) => Finding[]): string[] {
  return trackedSourceFiles()
    .flatMap((file) => check(file, readFileSync(join(ROOT, file), 'utf8')))
    .map((finding) => `${finding.at}: ${finding.problem}`);
}

describe('doc references in comments', () => {
  it('flags a citation in a comment, never one in a string, and names its line', () => {
    // Prepare
    const citation = join2('PROD', 'UCT §1');
    const probe = [`const title = '${citation}';`, '/**', ` * Rate limits (${citation}).`, ' */', `// ${join2('hou', 'se')} rule 7`, ''].join('\n');

    // Act
    const findings = forbiddenCitations('lib/probe.ts', probe);

    // Assess
    expect(findings.map((finding) => finding.at)).toEqual(['lib/probe.ts:3', 'lib/probe.ts:5']);
  });

  it('flags a missing doc and a section the doc does not have, and accepts a real one', () => {
    // Prepare
    const probe = [
      '// docs/nowhere.md',
      '/** See docs/api-guide.md "Rate limits" and docs/api-guide.md#idempotency-the-idempotency-key-header. */',
      '/**',
      ' * See docs/imports.md',
      ' * "No such section" and docs/events.md#no-such-anchor.',
      ' */',
      '',
    ].join('\n');

    // Act
    const findings = brokenDocReferences('lib/probe.ts', probe);

    // Assess
    expect(findings.map((finding) => finding.at)).toEqual(['lib/probe.ts:1', 'lib/probe.ts:4', 'lib/probe.ts:5']);
  });

  it('finds no comment citing a document outside the repository', () => {
    // Prepare
    const files = trackedSourceFiles();

    // Act
    const findings = scanSources(forbiddenCitations);

    // Assess
    expect(files.length).toBeGreaterThan(100);
    expect(findings, 'Cite docs/<file>.md and its section instead, or state the rule in plain words').toEqual([]);
  });

  it('finds every docs/<file>.md cited in a comment, with the section it names', () => {
    // Act
    const findings = scanSources(brokenDocReferences);

    // Assess
    expect(findings, 'Fix the citation, or add the section to the doc').toEqual([]);
  });
});
