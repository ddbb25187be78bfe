import type { FastifyInstance } from 'fastify';
import { badRequest } from '../errors.js';
import { LANGUAGES } from '../i18n/index.js';
import { errorResponses } from './schemas.js';

/**
 * `PUT /api/me/language` (docs/CONSOLE.md, "Languages"): the signed-in person's own language, which
 * her hosted pages and e-mails use before the browser's. The console's language menu calls it; any
 * signed-in console person may set hers, and only hers: the record is the token's own person, never
 * one named in the body.
 */
export async function myLanguageRoutes(app: FastifyInstance) {
  const { db } = app.ctx;
  app.put<{ Body: { language?: unknown } }>(
    '/me/language',
    {
      config: { permission: 'any' },
      schema: {
        tags: ['me'],
        summary: "Sets the caller's own language (hosted pages and e-mails)",
        body: { type: 'object', properties: { language: { type: 'string', maxLength: 10 } } },
        response: { 200: { type: 'object', properties: { language: { type: 'string', enum: [...LANGUAGES] } } }, ...errorResponses },
      },
    },
    async (request) => {
      const { language } = request.body ?? {};
      if (typeof language !== 'string' || !(LANGUAGES as readonly string[]).includes(language)) {
        throw badRequest(`language: one of ${LANGUAGES.join(', ')}`).as('language.unknown', { languages: LANGUAGES.join(', ') });
      }
      const { companyId, domainId, userId } = request.principal;
      await db.query(`UPDATE users SET language = $4 WHERE company_id = $1 AND domain_id = $2 AND id = $3`, [companyId, domainId, userId, language]);
      return { language };
    },
  );
}
