// The API's record schemas by resource name, as the build checks records with them.

import type { z } from 'zod';
import { validatorOf } from '../../../scripts/builder/pipeline/validators.ts';
import { API, type ResourceName } from '../../fixtures/sample.ts';

export const SCHEMAS = Object.fromEntries(API.map((resource) => [resource.name, validatorOf(resource)])) as Record<
  ResourceName,
  z.ZodType
>;
