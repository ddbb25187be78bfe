import crypto from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../db/index.js';
import { sha256 } from '../ids.js';
import type { KnownUser } from '../accounts/accounts.js';
import type { Attempt } from './loginThrottle.js';
import { escapeHtml, renderPage } from './loginPage.js';
import { t, th } from '../i18n/index.js';
import { MAX_ORGANIZATIONS } from './organizationSearch.js';

/**
 * The organization picked (docs/CONSOLE.md, "Sign-in form"; DECISIONS 43): a console sign-in naming
 * no organization whose password proved accounts in several organizations (organizationSearch.ts)
 * is parked, and the person picks among those the password proved, on a page of the provider's.
 * Nothing is named before the password proves it. The proof is kept server-side, one sign_in_steps
 * row per account proved (kind 'console', request.pick), bound to the browser by an HttpOnly cookie
 * holding a random token: row i's id is sha256(token.i), so neither the cookie nor a row names
 * another. A pick consumes every row of the sign-in (one pick per password) and goes on as if she
 * had named that organization: its steps, its code.
 */

const COOKIE = 'iam_pick';
export const PICK_PATH = '/oauth/pick';
/** Time enough to read the list and pick; the password proof does not last. */
const LIFETIME_SECONDS = 5 * 60;

const rowId = (token: string, index: number) => sha256(`${token}.${index}`);

const cookie = (value: string, maxAge: number, secure: boolean) =>
  [`${COOKIE}=${value}`, `Max-Age=${maxAge}`, `Path=${PICK_PATH}`, 'HttpOnly', 'SameSite=Lax', ...(secure ? ['Secure'] : [])].join('; ');

function cookieToken(request: FastifyRequest): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, value] = part.trim().split('=', 2);
    if (name === COOKIE && value && /^[A-Za-z0-9_-]{43}$/.test(value)) return value;
  }
  return undefined;
}

/** The authorization request the sign-in ends with, and the throttle's counts to give back at the pick. */
export interface ParkedPick {
  request: Record<string, string | undefined>;
  clientId: string;
  login: string;
  counted: Attempt['counted'];
}

/** Parks the proved accounts (at most a handful) and sends the browser to the pick page. */
export async function parkPick(db: Database, reply: FastifyReply, input: ParkedPick & { users: KnownUser[]; secure: boolean }): Promise<FastifyReply> {
  const token = crypto.randomBytes(32).toString('base64url');
  const request = { ...input.request, pick: '1', counted: JSON.stringify(input.counted) };
  for (const [index, user] of input.users.entries()) {
    await db.query(
      `INSERT INTO sign_in_steps (id, company_id, domain_id, user_id, kind, request, client_id, login, amr, expires_at)
       VALUES ($1, $2, $3, $4, 'console', $5::jsonb, $6, $7, $8::text[], now() + make_interval(secs => $9))`,
      [rowId(token, index), user.companyId, user.domainId, user.id, JSON.stringify(request), input.clientId, input.login, ['pwd'], LIFETIME_SECONDS],
    );
  }
  reply.header('Set-Cookie', cookie(token, LIFETIME_SECONDS, input.secure));
  return reply.header('Cache-Control', 'no-store').redirect(PICK_PATH, 303);
}

interface PickRow {
  id: string;
  companyId: string;
  domainId: string;
  userId: string;
  request: Record<string, string | undefined>;
  clientId: string;
  login: string;
  companyName: string;
  domainName: string;
}

const ROW_COLUMNS = `s.id, s.company_id AS "companyId", s.domain_id AS "domainId", s.user_id AS "userId", s.request, s.client_id AS "clientId", s.login`;

/** The organizations this browser's password proved, in the order they were found; none when expired. */
export async function pickChoices(db: Database, request: FastifyRequest): Promise<{ index: number; row: PickRow }[]> {
  const token = cookieToken(request);
  if (!token) return [];
  const ids = Array.from({ length: MAX_ORGANIZATIONS }, (_, index) => rowId(token, index));
  const { rows } = await db.query<PickRow>(
    `SELECT ${ROW_COLUMNS}, c.display_name AS "companyName", d.name AS "domainName"
     FROM sign_in_steps s JOIN companies c ON c.id = s.company_id JOIN domains d ON d.company_id = s.company_id AND d.id = s.domain_id
     WHERE s.id = ANY($1::text[]) AND s.expires_at > now() AND s.request ->> 'pick' = '1'`,
    [ids],
  );
  return rows.map((row) => ({ index: ids.indexOf(row.id), row })).sort((a, b) => a.index - b.index);
}

/**
 * Takes the pick: every row of this sign-in is consumed in one statement (a second tab, the back
 * button or a replay finds none), and the one picked is returned with what the sign-in needs to end.
 */
export async function takePick(db: Database, request: FastifyRequest, reply: FastifyReply, choice: string, secure: boolean) {
  const token = cookieToken(request);
  reply.header('Set-Cookie', cookie('', 0, secure));
  if (!token || !/^\d$/.test(choice)) return undefined;
  const ids = Array.from({ length: MAX_ORGANIZATIONS }, (_, index) => rowId(token, index));
  const { rows } = await db.query<Omit<PickRow, 'companyName' | 'domainName'>>(
    `DELETE FROM sign_in_steps s WHERE s.id = ANY($1::text[]) AND s.request ->> 'pick' = '1' AND s.expires_at > now() RETURNING ${ROW_COLUMNS}`,
    [ids],
  );
  const picked = rows.find((row) => row.id === rowId(token, Number(choice)));
  if (!picked) return undefined;
  const { pick: _pick, counted, ...checked } = picked.request;
  let parsed: Attempt['counted'] = [];
  try {
    parsed = JSON.parse(counted ?? '[]') as Attempt['counted'];
  } catch {
    parsed = [];
  }
  return { tenant: { companyId: picked.companyId, domainId: picked.domainId }, userId: picked.userId, checked, clientId: picked.clientId, login: picked.login, counted: parsed };
}

/** The pick page: one button per organization the password proved, and the way back to the application's sign-in. */
export function renderPickPage(choices: { index: number; row: PickRow }[], back?: string): string {
  const buttons = choices
    .map(({ index, row }) => `<button type="submit" name="choice" value="${index}">${escapeHtml(row.companyName)} › ${escapeHtml(row.domainName)}</button>`)
    .join('\n');
  return renderPage(
    t('pick.title'),
    `<h1>${th('pick.title')}</h1>
<p>${th('pick.intro')}</p>
<form method="post" action="${PICK_PATH}">
${buttons}
</form>${back ? `\n<p><a href="${escapeHtml(back)}">${th('forgot.back')}</a></p>` : ''}`,
  );
}
