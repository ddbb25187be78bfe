import type { Queryable } from '../db/index.js';
import { badRequest } from '../errors.js';
import { isRtl, type Language } from '../i18n/index.js';
import { resolvedBranding } from '../branding/effective.js';
import { textOn } from '../branding/contrast.js';
import { DEFAULTS, type Purpose, PURPOSES, type Template } from '../branding/emailDefaults.js';

export { type Purpose, PURPOSES, type Template };

/**
 * The messages the server sends (docs/CONSOLE.md, "E-mail, reset links and invitations" and "E-mail
 * templates"): a subject and a body with `{{name}}` placeholders, the company's own for that kind and
 * language, else its nearest ancestor's, else the provider's default (branding/emailDefaults.ts, in
 * every language). Sent as plain text and as simple HTML with the company's effective branding (logo,
 * primary colour, support address and link); every value put in the HTML is escaped, and a value is
 * never read again for placeholders (a display name `{{link}}` stays those characters).
 */
export interface MessageInput {
  companyName: string;
  personName: string;
  /** The address or username she signs in with. */
  login: string;
  email: string;
  link: string;
  /** The connection (upstream identity provider) whose identity asks to be linked ('link-identity'). */
  connectionName?: string;
}

export interface RenderedMessage {
  subject: string;
  text: string;
  html: string;
}

/** What the HTML copy shows of the company (its effective branding). */
export interface MessageBranding {
  /** Absolute address of the logo. */
  logoUrl?: string;
  primary?: string;
  supportEmail?: string;
  supportUrl?: string;
}

/** The placeholders every kind accepts; 'link-identity' also {{connectionName}}. */
export const PLACEHOLDERS = ['companyName', 'personName', 'login', 'email', 'link', 'supportEmail', 'supportUrl'] as const;
const placeholdersOf = (kind: Purpose): readonly string[] => (kind === 'link-identity' ? [...PLACEHOLDERS, 'connectionName'] : PLACEHOLDERS);

const PLACEHOLDER = /\{\{(.*?)\}\}/gs;
export const SUBJECT_MAX = 200;
export const BODY_MAX = 10_000;

/** 400 naming the field for a template that cannot be sent: too long, empty, an unknown placeholder, no {{link}}. */
export function checkTemplate(kind: Purpose, template: Template): void {
  for (const field of ['subject', 'body'] as const) {
    const value = template[field];
    const max = field === 'subject' ? SUBJECT_MAX : BODY_MAX;
    if (typeof value !== 'string' || value.trim() === '') throw badRequest(`${field}: must not be empty`).as('template.empty', { field });
    if (value.length > max) throw badRequest(`${field}: at most ${max} characters`).as('template.tooLong', { field, max });
    for (const [whole, name] of value.matchAll(PLACEHOLDER)) {
      if (!placeholdersOf(kind).includes(name.trim())) {
        throw badRequest(`${field}: unknown placeholder ${whole.slice(0, 60)}; the placeholders of ${kind} are ${placeholdersOf(kind).map((p) => `{{${p}}}`).join(' ')}`).as(
          'template.placeholder',
          { field, placeholder: whole.slice(0, 60), known: placeholdersOf(kind).map((p) => `{{${p}}}`).join(' ') },
        );
      }
    }
  }
  if (/[\r\n]/.test(template.subject)) throw badRequest('subject: must be one line').as('template.oneLine', { field: 'subject' });
  if (!/\{\{\s*link\s*\}\}/.test(template.body)) throw badRequest('body: must contain {{link}}, the link the person follows').as('template.noLink', { field: 'body' });
}

export const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

type Values = Record<string, string>;

/** The template's text with each placeholder replaced by its value (escaped by `escape`), in one pass. */
function fill(template: string, values: Values, escape: (text: string) => string = (text) => text): string {
  let out = '';
  let last = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    out += escape(template.slice(last, match.index)) + escape(values[match[1].trim()] ?? '');
    last = match.index! + match[0].length;
  }
  return out + escape(template.slice(last));
}

function valuesOf(language: Language, input: MessageInput, branding: MessageBranding): Values {
  return {
    companyName: input.companyName,
    personName: input.personName,
    login: input.login,
    email: input.email,
    link: input.link,
    supportEmail: branding.supportEmail ?? '',
    supportUrl: branding.supportUrl ?? '',
    connectionName: input.connectionName ?? DEFAULTS[language].anotherProvider,
  };
}

/** The message of `template` for `input`, with `branding` in its HTML copy. */
export function renderTemplate(purpose: Purpose, language: Language, template: Template, input: MessageInput, branding: MessageBranding = {}): RenderedMessage {
  const values = valuesOf(language, input, branding);
  // a subject is one header line whatever the values hold
  const subject = fill(template.subject, values).replace(/[\r\n]+/g, ' ');
  const words = DEFAULTS[language];
  const support = [branding.supportEmail, branding.supportUrl].filter(Boolean).join(' · ');
  const text = `${fill(template.body, values).trimEnd()}\n\n-- ${input.companyName}\n${support ? `${words.support}: ${support}\n` : ''}`;

  const primary = branding.primary ?? '#1565c0';
  const paragraphs = template.body
    .trim()
    .split(/\n\s*\n/)
    .map((paragraph) => {
      if (/^\{\{\s*link\s*\}\}$/.test(paragraph.trim())) {
        return `<p><a href="${escapeHtml(input.link)}" style="display: inline-block; padding: 0.6rem 1rem; background: ${primary}; color: ${textOn(primary)}; text-decoration: none; border-radius: 4px;">${escapeHtml(words.templates[purpose].button)}</a></p>
<p style="font-size: 0.9rem; word-break: break-all;">${escapeHtml(input.link)}</p>`;
      }
      return `<p>${fill(paragraph, values, escapeHtml).replace(/\n/g, '<br>')}</p>`;
    });
  const dir = isRtl(language) ? 'rtl' : 'ltr';
  const logo = branding.logoUrl ? `<p><img src="${escapeHtml(branding.logoUrl)}" alt="${escapeHtml(input.companyName)}" style="max-height: 48px; max-width: 240px;"></p>\n` : '';
  const supportHtml = [
    branding.supportEmail ? `<a href="mailto:${escapeHtml(branding.supportEmail)}" style="color: ${primary};">${escapeHtml(branding.supportEmail)}</a>` : '',
    branding.supportUrl ? `<a href="${escapeHtml(branding.supportUrl)}" style="color: ${primary};">${escapeHtml(branding.supportUrl)}</a>` : '',
  ].filter(Boolean);
  const html = `<!doctype html>
<html lang="${language}" dir="${dir}">
<head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body dir="${dir}" style="font-family: system-ui, sans-serif; line-height: 1.5; max-width: 36rem;">
${logo}${paragraphs.join('\n')}
<p>${escapeHtml(input.companyName)}</p>
${supportHtml.length ? `<p style="font-size: 0.9rem;">${escapeHtml(words.support)}: ${supportHtml.join(' · ')}</p>\n` : ''}</body>
</html>
`;
  return { subject, text, html };
}

/** The provider's default message, without a company's branding. */
export function renderMessage(purpose: Purpose, language: Language, input: MessageInput): RenderedMessage {
  return renderTemplate(purpose, language, DEFAULTS[language].templates[purpose], input);
}

export type TemplateSource = 'own' | 'inherited' | 'default';

/** The template a company sends for a kind and language: its own, its nearest ancestor's, or the default. */
export async function templateFor(db: Queryable, companyId: string, kind: Purpose, language: Language): Promise<Template & { source: TemplateSource }> {
  const { rows } = await db.query<{ subject: string; body: string; company_id: string }>(
    `SELECT t.subject, t.body, t.company_id
       FROM companies c JOIN email_templates t ON t.company_id = ANY (c.ancestors) AND t.kind = $2 AND t.language = $3
      WHERE c.id = $1
      ORDER BY array_position(c.ancestors, t.company_id) DESC LIMIT 1`,
    [companyId, kind, language],
  );
  const row = rows[0];
  if (!row) return { ...DEFAULTS[language].templates[kind], source: 'default' };
  return { subject: row.subject, body: row.body, source: row.company_id === companyId ? 'own' : 'inherited' };
}

/** The company's effective branding as a message shows it; its display name, if set, names the company. */
export async function messageBranding(db: Queryable, companyId: string, publicUrl: string): Promise<MessageBranding & { displayName?: string }> {
  const branding = await resolvedBranding(db, companyId);
  return {
    displayName: branding.displayName,
    logoUrl: branding.logoUrl ? new URL(branding.logoUrl, publicUrl).href : undefined,
    primary: branding.primaryLight,
    supportEmail: branding.supportEmail,
    supportUrl: branding.supportUrl,
  };
}

/**
 * The message a company sends (queueAccountLink): its template for the kind and language and its
 * effective branding; the company is named by its branding's display name when it has one.
 * `companyName` is also the sender's name.
 */
export async function renderCompanyMessage(
  db: Queryable,
  at: { companyId: string; purpose: Purpose; language: Language; publicUrl: string },
  input: MessageInput,
): Promise<RenderedMessage & { companyName: string }> {
  const template = await templateFor(db, at.companyId, at.purpose, at.language);
  const branding = await messageBranding(db, at.companyId, at.publicUrl);
  const companyName = branding.displayName ?? input.companyName;
  return { ...renderTemplate(at.purpose, at.language, template, { ...input, companyName }, branding), companyName };
}
