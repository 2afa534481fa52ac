// An HTTP answer judged against an OpenAPI 3.1 document, as a client that validates its answers
// would: the operation of its path and method must declare its status; each header the response
// declares must meet its schema (and be there when required); the Content-Type must be one of
// the response's media types, and the body, decoded from its Content-Encoding, its schema. Only
// the paths the document names are judged, each as written (the API's paths have no parameters).

import { Ajv2020 } from 'ajv2020/dist/2020.js';
import { decodedBody } from '../../e2e/lib/fuzz-oracle.ts';
import type { Answer } from '../../e2e/lib/http.ts';

// biome-ignore lint/suspicious/noExplicitAny: the document is read as plain JSON
type Doc = any;

const escapePointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/** Judges answers against `document`; one compilation per schema, kept. */
export function answerJudge(document: Doc): (answer: Answer) => string[] {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  // An absolute URI (RFC 3986 section 4.3), as `format: uri` says; ajv knows no format by itself.
  ajv.addFormat('uri', (value: string) => /^[a-z][a-z0-9+.-]*:/i.test(value) && URL.canParse(value));
  ajv.addSchema(document, 'openapi.json');
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
  const check = (pointer: string, value: unknown): string | undefined => {
    let validate = compiled.get(pointer);
    if (validate === undefined) {
      validate = ajv.compile({ $ref: `openapi.json#${pointer}` });
      compiled.set(pointer, validate);
    }
    return validate(value) ? undefined : ajv.errorsText(validate.errors);
  };
  const follow = (value: Doc, base: string): [Doc, string] => {
    if (typeof value?.$ref !== 'string') return [value, base];
    const pointer = (value.$ref as string).slice(1);
    const target = pointer
      .split('/')
      .slice(1)
      .reduce((at: Doc, key) => at?.[key.replaceAll('~1', '/').replaceAll('~0', '~')], document);
    return [target, pointer];
  };

  return (answer) => {
    const [path = ''] = answer.url.split('?');
    const method = answer.method.toLowerCase();
    const operation = document.paths?.[path]?.[method];
    if (operation === undefined) return [`${method.toUpperCase()} ${path}: no operation in the document`];
    const declared = operation.responses?.[String(answer.status)] ?? operation.responses?.default;
    if (declared === undefined) {
      const statuses = Object.keys(operation.responses ?? {}).join(', ');
      return [`status ${answer.status} is not declared (${statuses})`];
    }
    const [response, pointer] = follow(
      declared,
      `/paths/${escapePointer(path)}/${method}/responses/${escapePointer(String(answer.status))}`,
    );
    const problems: string[] = [];
    for (const [name, reference] of Object.entries<Doc>(response.headers ?? {})) {
      const [header, headerPointer] = follow(reference, `${pointer}/headers/${escapePointer(name)}`);
      const values = answer.all(name);
      if (values.length === 0) {
        if (header.required) problems.push(`header ${name}: missing`);
        continue;
      }
      // Several lines of one field are one value joined by commas (RFC 9110 section 5.3).
      const problem = check(`${headerPointer}/schema`, values.join(', '));
      if (problem !== undefined) problems.push(`header ${name}: ${JSON.stringify(values.join(', '))} ${problem}`);
    }
    const content = response.content as Record<string, { schema?: unknown }> | undefined;
    if (content === undefined) return problems;
    const type = answer.header('content-type')?.split(';')[0]?.trim().toLowerCase() ?? '';
    const mediaType = Object.keys(content).find((key) => key.toLowerCase() === type);
    if (mediaType === undefined) return [...problems, `Content-Type ${type || '(none)'} is not one of the document's`];
    if (answer.method === 'HEAD') return problems;
    const body = decodedBody(answer);
    let value: unknown;
    try {
      value = JSON.parse(body?.toString('utf8') ?? '');
    } catch {
      return [...problems, `the body is not JSON: ${JSON.stringify(answer.text.slice(0, 120))}`];
    }
    const problem = check(`${pointer}/content/${escapePointer(mediaType)}/schema`, value);
    return problem === undefined ? problems : [...problems, `body: ${problem}`];
  };
}
