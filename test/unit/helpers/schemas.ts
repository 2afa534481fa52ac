// The record schemas by resource name, as the build checks records with them: the catalogue's four
// (whose rules schemas.test.ts writes out) and any other list the run declares.

import type { z } from 'zod';
import { validatorOf } from '../../../scripts/builder/pipeline/validators.ts';
import { API, CATALOGUE, type ResourceName } from '../../fixtures/sample.ts';

export const SCHEMAS = Object.fromEntries(
  [...CATALOGUE, ...API].map((resource) => [resource.name, validatorOf(resource)]),
) as Record<ResourceName, z.ZodType>;

/** The record schema of any declared list, the catalogue's or another. */
export function schemaOf(name: string): z.ZodType {
  const schema = (SCHEMAS as Record<string, z.ZodType | undefined>)[name];
  if (schema === undefined) throw new Error(`no list ${name} is declared`);
  return schema;
}
