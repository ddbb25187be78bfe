import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';

/**
 * The logo and icon a company shows (docs/CONSOLE.md, "Branding"), served to anyone at
 * /branding/{companyId}/logo and /icon: its own, else its nearest ancestor's; 404 when none. The
 * address effectiveBranding gives carries `?v=` the holder's version: with the current one the image
 * is kept a year (immutable), otherwise it is revalidated by its ETag. The bytes are only ever PNG,
 * JPEG or WebP (checked when uploaded) and are served with their type, nosniff and a CSP that allows
 * nothing, so that even a file that is also HTML never runs; other sites (a webmail showing the
 * e-mail's logo) may load it.
 */
export async function brandingPublicRoutes(app: FastifyInstance) {
  const { db } = app.ctx;
  app.get<{ Params: { companyId: string; kind: 'logo' | 'icon' }; Querystring: { v?: string } }>(
    '/branding/:companyId/:kind',
    {
      schema: {
        hide: true,
        params: { type: 'object', required: ['companyId', 'kind'], properties: { companyId: { type: 'string', maxLength: 128 }, kind: { type: 'string', enum: ['logo', 'icon'] } } },
        querystring: { type: 'object', properties: { v: { type: 'string', maxLength: 20 } } },
      },
    },
    async (request, reply) => {
      const { companyId, kind } = request.params;
      const column = kind === 'logo' ? 'logo' : 'icon';
      const { rows } = await db.query<{ bytes: Uint8Array; type: string; version: number; holder: string }>(
        `SELECT b.${column} AS bytes, b.${column}_type AS type, b.version, b.company_id AS holder
           FROM companies c JOIN company_branding b ON b.company_id = ANY (c.ancestors) AND b.${column} IS NOT NULL
          WHERE c.id = $1
          ORDER BY array_position(c.ancestors, b.company_id) DESC LIMIT 1`,
        [companyId],
      );
      reply.header('X-Content-Type-Options', 'nosniff');
      reply.header('Content-Security-Policy', "default-src 'none'");
      reply.header('Cross-Origin-Resource-Policy', 'cross-origin');
      const image = rows[0];
      if (!image) {
        reply.header('Cache-Control', 'no-cache');
        return reply.status(404).send({ statusCode: 404, error: 'Not Found', message: `no ${kind} for company ${companyId}` });
      }
      // the holder's id stays out of the tag: a customer's people need not learn its reseller's
      const etag = `"${crypto.createHash('sha256').update(`${image.holder}\n${kind}\n${image.version}`).digest('base64url').slice(0, 22)}"`;
      reply.header('ETag', etag);
      reply.header('Cache-Control', request.query.v === String(image.version) ? 'public, max-age=31536000, immutable' : 'no-cache');
      if (request.headers['if-none-match'] === etag) return reply.status(304).send();
      return reply.type(image.type).send(Buffer.from(image.bytes.buffer, image.bytes.byteOffset, image.bytes.byteLength));
    },
  );
}
