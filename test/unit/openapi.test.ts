import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ROUTE, methodsOf, routes } from '../../infra/routes.ts';
import { buildOpenApi, OPENAPI_FILE, renderOpenApi } from '../../scripts/openapi.ts';
import type { RequestDocs } from '#shared/http/handler.ts';

// The committed OpenAPI document is what the route table and the handlers' schemas generate, it is a
// valid OpenAPI 3.1 document, and it describes every row with its parameters and body.

type Op = {
  parameters?: { name: string; in: string; required: boolean }[];
  requestBody?: { content: Record<string, unknown> };
  operationId: string;
};
type Doc = { openapi: string; paths: Record<string, Record<string, Op>>; components: { schemas: Record<string, unknown> } };

describe('OpenAPI document', () => {
  let doc: Doc;
  beforeAll(async () => {
    doc = (await buildOpenApi()) as Doc;
  }, 60_000);

  it('is up to date (run `npm run docs` after changing routes or schemas)', () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(renderOpenApi(doc));
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const res = await validator.validate(structuredClone(doc));
    expect(res.errors ?? []).toEqual([]);
    expect(res.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    // The validator does refuse a broken document (a parameter OpenAPI 3.1 has no place for).
    const broken = structuredClone(doc);
    broken.paths['/health'].get.parameters = [{ name: 'x', in: 'body', required: true }];
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('has one operation per method of every row, each with unique id and its path parameters', () => {
    const ids = new Set<string>();
    for (const r of routes.filter((x) => x.path !== DEFAULT_ROUTE)) {
      for (const m of methodsOf(r)) {
        const op = doc.paths[r.path]?.[m.toLowerCase()];
        expect(op, `${m} ${r.path}`).toBeDefined();
        expect(ids.has(op.operationId), op.operationId).toBe(false);
        ids.add(op.operationId);
        const declared = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
        expect(declared, `${m} ${r.path}`).toEqual([...r.path.matchAll(/\{(\w+)\}/g)].map((x) => x[1]));
      }
    }
    const operations = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    expect(operations).toBe(ids.size);
  });

  it("describes each handler's body schema and each row's query parameters", async () => {
    process.env.TABLE_NAME ??= 'openapi';
    let bodies = 0;
    for (const r of routes.filter((x) => x.path !== DEFAULT_ROUTE)) {
      const docs = ((await import(pathToFileURL(join(import.meta.dirname, '../..', r.handler)).href)).handler as { docs?: RequestDocs })
        .docs;
      for (const m of methodsOf(r)) {
        const op = doc.paths[r.path][m.toLowerCase()];
        const query = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
        if (docs?.body && m !== 'GET') {
          bodies++;
          expect(Object.keys(op.requestBody?.content ?? {}), `${m} ${r.path}`).toContain('application/json');
          if (docs.multipart) expect(Object.keys(op.requestBody!.content)).toContain('multipart/form-data');
        } else {
          expect(op.requestBody, `${m} ${r.path}`).toBeUndefined();
        }
        if (r.query) {
          const props = Object.keys((r.query as unknown as { entries: Record<string, unknown> }).entries);
          expect(query, `${m} ${r.path}`).toEqual(expect.arrayContaining(props));
        }
      }
    }
    expect(bodies).toBeGreaterThan(100);
    // Spot checks of the conversion: required fields, bounds and patterns survive.
    const label = doc.components.schemas.ApiLabelsCreateBody as {
      required: string[];
      properties: Record<string, { maxLength?: number; pattern?: string }>;
    };
    expect(label.required).toEqual(['title']);
    expect(label.properties.title).toMatchObject({ maxLength: 255, pattern: expect.any(String) });
    const list = doc.paths['/api/v1/accounts/{account_id}/conversations'].get.parameters!.map((p) => p.name);
    expect(list).toEqual(expect.arrayContaining(['account_id', 'status', 'assignee_type', 'page', 'labels[]']));
  }, 60_000);
});
