import { JsonObject } from '@gateway/contracts';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** `correlationId` is transient: not validated beyond its type, not stored, returned as sent. */
export function correlationIdOf(body: JsonObject): string | undefined {
  return typeof body.correlationId === 'string' ? body.correlationId : undefined;
}

/**
 * The API's paths and the methods each serves, for telling an unknown path (404) from a known
 * path called with another method (405, with an Allow header).
 */
export const API_ROUTES: { pattern: RegExp; methods: string[] }[] = [
  { pattern: /^\/api\/rest\/version\/[^/]+\/merchant\/[^/]+\/order\/[^/]+\/transaction\/[^/]+$/, methods: ['GET', 'PUT'] },
  { pattern: /^\/api\/rest\/version\/[^/]+\/merchant\/[^/]+\/order\/[^/]+$/, methods: ['GET'] },
  { pattern: /^\/api\/rest\/version\/[^/]+\/merchant\/[^/]+\/token\/[^/]+$/, methods: ['PUT'] },
];
