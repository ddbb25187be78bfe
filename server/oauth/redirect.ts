import type { FastifyReply } from 'fastify';
import { loginPagePolicy } from './loginPage.js';

/**
 * Authorization responses are 303 See Other: after a form post the browser must follow with a GET
 * and must not re-send the password to the client (RFC 9700 4.12: never 307).
 */
export function sendRedirect(reply: FastifyReply, location: string, redirectUri?: string) {
  return reply
    .status(303)
    .header('Location', location)
    .header('Cache-Control', 'no-store')
    .header('Content-Security-Policy', loginPagePolicy(redirectUri))
    .send();
}
