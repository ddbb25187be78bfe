/**
 * The console's one HTTP client: fetch with JSON bodies and the bearer token of the session.
 * Its result and errors have the shape of react-admin's fetchUtils.fetchJson ({status, headers,
 * body, json}; errors carry status and body) so ra-data-simple-rest can use it, yet it imports
 * nothing from react-admin and can ship in the small sign-in bundle.
 */
import { getSession } from '../session/session';
import { apiErrorText } from './apiErrorText';
import { fieldErrorsOf } from './fieldErrors';

export interface HttpResponse {
  status: number;
  headers: Headers;
  body: string;
  json: any;
}

export interface HttpOptions extends Omit<RequestInit, 'headers'> {
  headers?: Headers | Record<string, string>;
  /** Overrides the session's token (the callback has a token before the session exists). */
  token?: string;
}

/** The provider's error body {statusCode, error, message, code, params?}; message is what the user sees (apiErrorText). */
export class HttpError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export async function httpClient(url: string, options: HttpOptions = {}): Promise<HttpResponse> {
  const { token = getSession().accessToken, headers: given, ...init } = options;
  const headers = new Headers(given);
  if (!headers.has('Accept')) headers.set('Accept', 'application/json');
  if (init.body !== undefined && typeof init.body === 'string' && !headers.has('Content-Type')) {
    headers.set('Content-Type', 'application/json');
  }
  if (token && !headers.has('Authorization')) headers.set('Authorization', `Bearer ${token}`);

  const response = await fetch(url, { ...init, headers });
  const body = await response.text();
  let json: any;
  try {
    json = body ? JSON.parse(body) : undefined;
  } catch {
    json = body;
  }
  if (response.status < 200 || response.status > 299) {
    const message = (json && typeof json === 'object' && json.message) || response.statusText || `HTTP ${response.status}`;
    // react-admin's shape for server-side validation errors: body.errors = { field: message }
    const errors = response.status === 400 && json && typeof json === 'object' ? fieldErrorsOf(String(message)) : undefined;
    // in another language than English, the sentence of the error's code (body.message stays English)
    throw new HttpError(await apiErrorText(json, String(message)), response.status, errors ? { ...json, errors } : json);
  }
  return { status: response.status, headers: response.headers, body, json };
}
