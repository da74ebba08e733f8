import { posix, relative } from 'node:path';

/**
 * The rules that need to know where an import lands, not only how it is spelled: each resolves a
 * relative specifier against the importing file (docs/architecture.md "Areas and their doors").
 *
 * - `area-doors`: a file of one area reaches another area only through its door,
 *   `lib/<area>/index.ts` (or `lib/<area>/store/index.ts`, from a store/ file only), and never
 *   through its own area's doors (that would be a cycle).
 * - `platform-knows-no-area`: lib/platform/ imports neither an area nor lib/app/; areas never
 *   import lib/app/ (the assembly sits on top of them).
 * - `infra-reads-declarations`: infra/ reads only what describes the stack (the route and worker
 *   tables, route types, config, storage declarations, metric names), never runtime code.
 */

const ROOT = process.cwd();
const NOT_AREAS = new Set(['platform', 'app']);

/** The repository-relative path an import names, or undefined for a package. */
function targetOf(context, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const file = relative(ROOT, context.filename).split('\\').join('/');
  return { file, target: posix.normalize(posix.join(posix.dirname(file), specifier)) };
}

function areaOf(path) {
  const match = /^lib\/([^/]+)\//.exec(path);
  return match && !NOT_AREAS.has(match[1]) ? match[1] : undefined;
}

/** Calls `check` for every module specifier of an import, a re-export or a dynamic import(). */
function onSpecifiers(check) {
  const visit = (node) => {
    if (node.source && typeof node.source.value === 'string') check(node.source, node.source.value);
  };
  return {
    ImportDeclaration: visit,
    ExportNamedDeclaration: visit,
    ExportAllDeclaration: visit,
    ImportExpression: (node) => {
      if (node.source.type === 'Literal' && typeof node.source.value === 'string') check(node.source, node.source.value);
    },
  };
}

const areaDoors = {
  meta: { type: 'problem', schema: [], messages: { pastDoor: '{{message}}' } },
  create(context) {
    return onSpecifiers((node, specifier) => {
      const resolved = targetOf(context, specifier);
      if (!resolved) return;
      const { file, target } = resolved;
      const from = areaOf(file);
      const to = areaOf(target);
      if (!from || !to) return;
      const door = `lib/${to}/index.ts`;
      const storeDoor = `lib/${to}/store/index.ts`;
      let message;
      if (from === to) {
        if (target === door || target === storeDoor)
          message = `A file of ${from} imports its own area's siblings directly, never its door (${target}): that makes a cycle.`;
      } else if (target === storeDoor) {
        if (!file.startsWith(`lib/${from}/store/`))
          message = `Only a store/ adapter imports another area's adapters (${storeDoor}); depend on a port of your own domain instead.`;
      } else if (target !== door) {
        message = `${target} is inside the ${to} area: import it through its door, ${door} (or ${storeDoor} from a store/ file), adding the name there.`;
      }
      if (message) context.report({ node, messageId: 'pastDoor', data: { message } });
    });
  },
};

const platformKnowsNoArea = {
  meta: { type: 'problem', schema: [], messages: { upward: '{{message}}' } },
  create(context) {
    return onSpecifiers((node, specifier) => {
      const resolved = targetOf(context, specifier);
      if (!resolved) return;
      const { file, target } = resolved;
      let message;
      if (file.startsWith('lib/platform/') && (areaOf(target) || target.startsWith('lib/app/'))) {
        message = `lib/platform/ knows no area and not lib/app/ (${target}): move what both need into lib/platform/, or let the area pass it in.`;
      } else if (areaOf(file) && target.startsWith('lib/app/')) {
        message = `Areas never import lib/app/ (${target}): the assembly imports the areas, not the reverse.`;
      }
      if (message) context.report({ node, messageId: 'upward', data: { message } });
    });
  },
};

/** What infra/ may read of lib/: declarations of the stack, none of the runtime. */
const INFRA_MAY_READ = [
  /^lib\/app\/(routes|workers|reference-page)\.ts$/,
  /^lib\/[^/]+\/routes\.ts$/,
  /^lib\/platform\/contracts\/route-types\.ts$/,
  /^lib\/platform\/config\//,
  /^lib\/platform\/storage\//,
  /^lib\/platform\/observability\/metric-names\.ts$/,
];

const infraReadsDeclarations = {
  meta: { type: 'problem', schema: [], messages: { runtime: '{{message}}' } },
  create(context) {
    return onSpecifiers((node, specifier) => {
      const resolved = targetOf(context, specifier);
      if (!resolved || !resolved.target.startsWith('lib/')) return;
      if (INFRA_MAY_READ.some((allowed) => allowed.test(resolved.target))) return;
      context.report({
        node,
        messageId: 'runtime',
        data: {
          message: `infra/ reads declarations only (route and worker tables, config, lib/platform/storage, metric names), not ${resolved.target}: declare the fact there.`,
        },
      });
    });
  },
};

export const areaRules = {
  'area-doors': areaDoors,
  'platform-knows-no-area': platformKnowsNoArea,
  'infra-reads-declarations': infraReadsDeclarations,
};
