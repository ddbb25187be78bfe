/**
 * An API error in the person's language (docs/CONSOLE.md, "Errors and messages"): the sentence of
 * its code with its params in French, the provider's English message for an unknown code, a missing
 * param, or in English.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mockFetch } from '../test/fetchMock';
import { apiErrorSentence } from './apiErrorText';
import { HttpError, httpClient } from './httpClient';

const failure = async (json: unknown, status = 403) => {
  mockFetch(() => ({ status, json }));
  const error = await httpClient('/api/x', { token: 't' }).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(HttpError);
  return error as HttpError;
};

const missing = {
  statusCode: 403,
  error: 'Forbidden',
  message: 'Your role does not allow users:write here: it needs the Owner, Administrator or User manager role.',
  code: 'permission.missing',
  params: { permission: 'users:write', roles: 'Owner, Administrator, User manager' },
};

afterEach(() => {
  document.documentElement.lang = '';
  vi.unstubAllGlobals();
});

describe('API errors in the chosen language', () => {
  it('shows the French sentence of a known code, with its params; the body keeps the English', async () => {
    document.documentElement.lang = 'fr';
    const error = await failure(missing);
    expect(error.message).toBe('Votre rôle ne permet pas users:write ici. Rôles qui le permettent : Owner, Administrator, User manager.');
    expect((error.body as { message: string }).message).toBe(missing.message);

    const duplicate = await failure({ statusCode: 409, error: 'Conflict', message: 'duplicated error: ALICE already exist!', code: 'duplicate', params: { name: 'ALICE' } }, 409);
    expect(duplicate.message).toBe('ALICE existe déjà.');
    const required = await failure({ statusCode: 400, error: 'Bad Request', message: "body must have required property 'email'", code: 'validation.required', params: { field: 'email' } }, 400);
    expect(required.message).toBe('email est obligatoire.');
    // the form's field errors still come from the English message
    expect((required.body as { errors: object }).errors).toEqual({ email: 'must have required property' });
  });

  it("falls back to the provider's message for an unknown code, a generic one, a missing param, or no code", async () => {
    document.documentElement.lang = 'fr';
    expect((await failure({ ...missing, code: 'something.new' })).message).toBe(missing.message);
    expect((await failure({ ...missing, code: 'bad_request' }, 400)).message).toBe(missing.message);
    expect((await failure({ ...missing, params: { permission: 'users:write' } })).message).toBe(missing.message);
    expect((await failure({ statusCode: 403, error: 'Forbidden', message: 'old server' })).message).toBe('old server');
    // never a raw code, nor a lookup outside the codes' tree
    expect((await failure({ ...missing, code: 'constructor' })).message).toBe(missing.message);
  });

  it("shows the provider's own message in English, as before", async () => {
    document.documentElement.lang = 'en';
    expect((await failure(missing)).message).toBe(missing.message);
  });

  it('fills the params of a sentence, and refuses one with a param missing', () => {
    const tree = { iam: { apiErrors: { not_found: 'Introuvable : %{what}.', validation: { tooLong: '%{field} : au plus %{limit} caractères.' } } } };
    expect(apiErrorSentence(tree, 'not_found', { what: 'User' })).toBe('Introuvable : User.');
    expect(apiErrorSentence(tree, 'validation.tooLong', { field: 'name', limit: 200 })).toBe('name : au plus 200 caractères.');
    expect(apiErrorSentence(tree, 'validation.tooLong', { field: 'name' })).toBeUndefined();
    expect(apiErrorSentence(tree, 'validation', {})).toBeUndefined();
  });
});
