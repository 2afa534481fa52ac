// Which deploy targets a build writes, decided beside the targets and not in the build: the
// targets named (or all of them) are asked for their files; once the output is rendered, each is
// checked against its host's limits, the `_headers` rules it cannot write and the settings'
// filters, search and orderings it cannot answer. A target the user named that cannot take the
// build stops it before anything is written; of all targets, one that cannot is left out with a
// warning, its folder a README saying why. builder/build.ts calls these with plain values and
// writes what judgeTargets() returns.

import path from 'node:path';
import type { Routed } from '../contract/routes.ts';
import { type FileBody, sizeOf } from '../shared/file-body.ts';
import { TARGETS } from './index.ts';
import { leftOutFiles } from './left-out.ts';
import { type CloudflarePlan, checkLimits, DEFAULT_CLOUDFLARE_PLAN, formatFinding, LimitsError } from './limits.ts';
import { HeadersTargetError, type Target, type TargetContext } from './target.ts';

/** The targets a build is for: those `named`, in the list's order, or all of them when none are. */
export function selectTargets(named: readonly string[] | undefined): Target[] {
  return TARGETS.filter((target) => !named || named.includes(target.name));
}

/** Whether `target` answers or refuses the settings' filters, search and orderings, never sending the whole list. */
export function answersQueries(target: Target): boolean {
  return target.queries !== 'path';
}

/** A target and the files of its folder, targets/<name>/. */
export interface TargetFiles {
  target: Target;
  files: Map<string, string>;
}

/** A target's files; or, for a target the user did not name, its refusal of a `_headers` rule it cannot write. */
export interface Asked {
  target: Target;
  files: Map<string, string> | HeadersTargetError;
}

/**
 * Asks each of `selected` for its files, all at once (esbuild bundles in a process of its own).
 * A target that cannot write a `_headers` rule is judged with the others when the user did not
 * name the targets (`named`): it is then left out as one over a limit is. Any other failure, the
 * first in the list's order, is the build's.
 */
export async function askTargets(
  selected: readonly Target[],
  context: TargetContext,
  named: boolean,
): Promise<Asked[]> {
  const settled = await Promise.allSettled(selected.map((target) => target.files(context)));
  return settled.map((result, index) => {
    const target = selected[index] as Target;
    if (result.status === 'fulfilled') return { target, files: result.value };
    if (!named && result.reason instanceof HeadersTargetError) return { target, files: result.reason };
    throw result.reason;
  });
}

/** What the targets are judged on: the rendered build, before anything is written. */
export interface Judged {
  /** The output folder's files. */
  output: ReadonlyMap<string, FileBody>;
  /** The resources built, with the settings' filters, search and orderings. */
  resources: readonly Routed[];
  /** The Cloudflare plan whose limits the Cloudflare targets are checked against; free when absent. */
  plan?: CloudflarePlan;
  /** The worker's CPU time per request (ms) the user sets on the paid plan; the plan's default when absent. */
  cpuMs?: number;
  /** Whether the user named the targets (`--target`, the settings file): one that cannot take the build stops it. */
  named: boolean;
  /** Where the output and the targets' folders go, as the messages name them. */
  outDir: string;
  targetsDir: string;
  /** Receives one line per host limit that a target is near, or over when it is left out. */
  warn: (line: string) => void;
}

export interface Verdict {
  /** The targets that take the build, with their files, in the list's order. */
  written: TargetFiles[];
  /** The targets left out, each with what its folder holds instead: a README saying why. */
  leftOut: TargetFiles[];
}

/** The paths of the lists the settings file gives filters, search or orderings. */
function queriedLists(resources: readonly Routed[]): string[] {
  return resources
    .filter(({ query }) => query && query.filters.length + query.search.length + query.ordering.length > 0)
    .map((resource) => resource.path);
}

/** Why a target that routes on the path alone cannot take a build whose settings make answers at request time. */
function cannotQuery(target: string, paths: readonly string[]): string {
  const able = TARGETS.filter(answersQueries).map((each) => each.name);
  return `${target}: routes on the path alone, so it cannot answer or refuse the filters, search and orderings the settings file gives ${paths.join(', ')} (it would send the whole list); use ${able.join(', ')}, or remove those settings`;
}

/**
 * The targets that take this build: within their hosts' limits, able to write every `_headers`
 * rule, and answering the lists' filters, search and orderings where the settings give some. A
 * target named by the user that cannot stops the build (LimitsError, one line per reason, the
 * warnings of the others given first); otherwise it is left out, with a warning per reason.
 * Nothing has been written yet: the previous output stays whole either way.
 */
export function judgeTargets(asked: readonly Asked[], build: Judged): Verdict {
  const { warn } = build;
  const sizes = new Map([...build.output].map(([file, body]) => [file, sizeOf(body)]));
  const plan = build.plan ?? DEFAULT_CLOUDFLARE_PLAN;
  const queried = queriedLists(build.resources);
  const breaches: string[] = [];
  const verdict: Verdict = { written: [], leftOut: [] };
  for (const { target, files } of asked) {
    const targetDir = path.join(build.targetsDir, target.name);
    const leaveOut = (reasons: string[]) => {
      for (const line of reasons) warn(line);
      warn(
        `${target.name} is left out: ${targetDir}/ holds only a README saying why (--target ${target.name} makes this an error)`,
      );
      verdict.leftOut.push({ target, files: leftOutFiles(target.name, reasons) });
    };
    if (files instanceof HeadersTargetError) {
      leaveOut([files.refusal]);
      continue;
    }
    const built = {
      output: build.output,
      sizes,
      targetFiles: files,
      plan,
      resources: build.resources,
      ...(build.cpuMs === undefined ? {} : { cpuMs: build.cpuMs }),
    };
    const findings = checkLimits(target.name, target.limits, built, { outDir: build.outDir, targetDir });
    for (const finding of findings.filter((found) => !found.over)) warn(formatFinding(finding));
    const over = findings.filter((found) => found.over).map(formatFinding);
    if (queried.length > 0 && !answersQueries(target)) over.push(cannotQuery(target.name, queried));
    if (over.length === 0) verdict.written.push({ target, files });
    else if (build.named) breaches.push(...over);
    else leaveOut(over);
  }
  if (breaches.length > 0) throw new LimitsError(breaches);
  return verdict;
}
