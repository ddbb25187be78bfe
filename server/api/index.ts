import type { FastifyInstance } from 'fastify';
import { companyRoutes } from './companies.js';
import { domainRoutes } from './domains.js';
import { userRoutes } from './users.js';

/** The management API, one module per resource (SPEC 7). */
export async function apiRoutes(app: FastifyInstance) {
  await app.register(companyRoutes);
  await app.register(domainRoutes);
  await app.register(userRoutes);
}
