// What a source record may hold: each resource's validator, a strict zod schema made from its
// declaration (contract/resources/), with the one rule every record has: its text is well-formed Unicode.

import { z } from 'zod';
import { fieldKinds } from '../../contract/resources/fields.ts';
import type { Resource } from '../../contract/resources/resource.ts';

const FIELDS = fieldKinds(z);

const LONE_SURROGATE = 'expected well-formed Unicode text (no lone surrogates)';

const isPlainObject = (value: unknown) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Reports each string in `value`, the part of a record at `path`, that holds a lone surrogate. */
function reportIllFormed(value: unknown, path: PropertyKey[], ctx: z.RefinementCtx): void {
  if (typeof value === 'string') {
    if (!value.isWellFormed()) ctx.addIssue({ code: 'custom', path, message: LONE_SURROGATE, input: value });
  } else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) reportIllFormed(item, [...path, index], ctx);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) reportIllFormed(item, [...path, key], ctx);
  }
}

/**
 * Every string of a record must be text UTF-8 can encode: a lone surrogate would make the DRF
 * service fail, not answer. One check per record, after the fields' own checks and also when
 * one of them failed, so that one run reports every problem.
 */
function wellFormedText<T extends z.ZodType<object>>(schema: T): T {
  return schema.superRefine(
    (record, ctx) => {
      for (const key in record) {
        const value = (record as Record<string, unknown>)[key];
        // A top-level string, the common case, is checked without making a path for it.
        if (typeof value === 'string') {
          if (!value.isWellFormed())
            ctx.addIssue({ code: 'custom', path: [key], message: LONE_SURROGATE, input: value });
        } else if (value !== null && typeof value === 'object') {
          reportIllFormed(value, [key], ctx);
        }
      }
    },
    { when: (payload) => isPlainObject(payload.value) },
  );
}

const describeRecord = (resource: Resource) =>
  `${resource.one[0]?.toUpperCase()}${resource.one.slice(1)}. A file of data/ holds one record or an array of them. ` +
  'Checked by the build only, as JSON Schema cannot express it: every text is well-formed Unicode (no lone ' +
  `surrogates); ${resource.buildOnlyRules.join('; ')}.`;

const made = new WeakMap<Resource, z.ZodType>();

/**
 * The validator of a record of `resource`, made once per declaration from its record schema. What
 * the JSON Schemas (json-schemas.ts) cannot say is said in its description;
 * test/unit/json-schemas.test.ts lists the same rules and proves that zod and JSON Schema agree on
 * every other one.
 */
export function validatorOf(resource: Resource): z.ZodType {
  let validator = made.get(resource);
  if (validator === undefined) {
    validator = wellFormedText(resource.record(FIELDS)).describe(describeRecord(resource));
    made.set(resource, validator);
  }
  return validator;
}

/** A zod schema's own definition: its kind and what it wraps or holds (zod's `_zod.def`). */
type Definition = z.core.$ZodTypeDef & {
  innerType?: z.core.$ZodType;
  in?: z.core.$ZodType;
  out?: z.core.$ZodType;
  options?: readonly z.core.$ZodType[];
  shape?: Record<string, z.core.$ZodType>;
  element?: z.core.$ZodType;
};

const definitionOf = (schema: z.core.$ZodType) => schema._zod.def as Definition;

/** The message a check gives when it fails, without its leading `expected `. */
function expectedOf(check: z.core.$ZodCheck): string | undefined {
  // The checks here are given their message as text, which zod keeps as a function of the issue.
  const message = check._zod.def.error?.({} as never);
  const text = typeof message === 'string' ? message : message?.message;
  return text?.replace(/^expected /, '');
}

/**
 * What each text field of a record of `resource` is expected to be, in the words of the messages
 * its checks give (`a colour of the form #rrggbb`), by its name as the reference page lists it:
 * `tags`, `tiles.tile_pattern`, `events[].event_logo`, and `categories[]` for a list's items.
 * The reference says a rule in these words rather than as the JSON Schema's pattern.
 */
export function expectedWords(resource: Resource): Map<string, string> {
  const words = new Map<string, string>();
  const visit = (schema: z.core.$ZodType, name: string) => {
    const definition = definitionOf(schema);
    // What a nullable, a pipe (a value read, then checked) or a union holds is checked alike.
    const held = [definition.innerType, definition.in, definition.out, ...(definition.options ?? [])];
    for (const inner of held) if (inner !== undefined) visit(inner, name);
    if (definition.type === 'object')
      for (const [key, field] of Object.entries(definition.shape ?? {}))
        visit(field, name === '' ? key : `${name}.${key}`);
    else if (definition.type === 'array' && definition.element !== undefined) visit(definition.element, `${name}[]`);
    else if (definition.type === 'string') {
      const expected = (definition.checks ?? []).map(expectedOf).filter((text) => text !== undefined);
      if (expected.length > 0) words.set(name, expected.join(', '));
    }
  };
  visit(validatorOf(resource), '');
  return words;
}
