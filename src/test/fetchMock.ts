/**
 * A fetch stand-in at the network edge: records every request and answers from a route table.
 */
import { vi } from 'vitest';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Headers;
  body: string | undefined;
}

export type Responder = (request: RecordedRequest) => { status?: number; json?: unknown; headers?: Record<string, string> };

export function mockFetch(responder: Responder = () => ({ json: {} })) {
  const requests: RecordedRequest[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const request: RecordedRequest = {
      method: (init.method ?? 'GET').toUpperCase(),
      url: String(input),
      headers: new Headers(init.headers),
      body: typeof init.body === 'string' ? init.body : undefined,
    };
    requests.push(request);
    const { status = 200, json, headers = {} } = responder(request);
    return new Response(json === undefined ? '' : JSON.stringify(json), {
      status,
      headers: { 'Content-Type': 'application/json', ...headers },
    });
  });
  vi.stubGlobal('fetch', fetchMock);
  return { requests, fetchMock };
}

/** Decodes a URL's path and query for readable assertions. */
export function readable(url: string): string {
  return decodeURIComponent(url);
}
