import type { Language } from './language.js';

/**
 * The messages the server sends (docs/CONSOLE.md, "E-mail, reset links and invitations"): plain
 * text and the same words as simple HTML, naming the company's display name (its brand), in English
 * or French. Every value put in the HTML is escaped.
 */
export type Purpose = 'reset' | 'invite' | 'verify' | 'link-identity';

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

interface Words {
  subject: string;
  lines: string[];
  button: string;
  after: string;
}

const WORDS: Record<Language, Record<Purpose, (m: MessageInput) => Words> & { hello: (name: string) => string }> = {
  en: {
    hello: (name) => `Hello ${name},`,
    reset: (m) => ({
      subject: `Reset your ${m.companyName} password`,
      lines: [`Someone, we hope you, asked to reset the password of your ${m.companyName} account (${m.login}). To choose a new password, open this link within 30 minutes:`],
      button: 'Choose a new password',
      after: 'If you did not ask for it, ignore this message: your password stays as it is.',
    }),
    invite: (m) => ({
      subject: `Your ${m.companyName} account`,
      lines: [`${m.companyName} has made an account for you (${m.login}). To choose your password, open this link within 7 days:`],
      button: 'Choose your password',
      after: 'If you did not expect this message, ignore it.',
    }),
    verify: (m) => ({
      subject: `Verify your e-mail address for ${m.companyName}`,
      lines: [`To confirm that ${m.email} is the address of your ${m.companyName} account, open this link within 24 hours:`],
      button: 'Verify my address',
      after: 'If you did not ask for it, ignore this message.',
    }),
    'link-identity': (m) => ({
      subject: `Link a sign-in to your ${m.companyName} account`,
      lines: [
        `Someone signing in with ${m.connectionName ?? 'another identity provider'} asked to link that identity to your ${m.companyName} account (${m.login}). Once linked, that identity signs in to your account.`,
        'If it was you, open this link within 15 minutes, in the browser where you started signing in:',
      ],
      button: 'Link this sign-in',
      after: 'If it was not you, ignore this message: nothing is linked, and your account stays as it is.',
    }),
  },
  fr: {
    hello: (name) => `Bonjour ${name},`,
    reset: (m) => ({
      subject: `Réinitialisez votre mot de passe ${m.companyName}`,
      lines: [`Quelqu'un, vous sans doute, a demandé à réinitialiser le mot de passe de votre compte ${m.companyName} (${m.login}). Pour choisir un nouveau mot de passe, ouvrez ce lien dans les 30 minutes :`],
      button: 'Choisir un nouveau mot de passe',
      after: "Si vous n'avez rien demandé, ignorez ce message : votre mot de passe ne change pas.",
    }),
    invite: (m) => ({
      subject: `Votre compte ${m.companyName}`,
      lines: [`${m.companyName} vous a créé un compte (${m.login}). Pour choisir votre mot de passe, ouvrez ce lien dans les 7 jours :`],
      button: 'Choisir mon mot de passe',
      after: "Si vous n'attendiez pas ce message, ignorez-le.",
    }),
    verify: (m) => ({
      subject: `Vérifiez votre adresse e-mail pour ${m.companyName}`,
      lines: [`Pour confirmer que ${m.email} est l'adresse de votre compte ${m.companyName}, ouvrez ce lien dans les 24 heures :`],
      button: 'Vérifier mon adresse',
      after: "Si vous n'avez rien demandé, ignorez ce message.",
    }),
    'link-identity': (m) => ({
      subject: `Lier une connexion à votre compte ${m.companyName}`,
      lines: [
        `Quelqu'un qui se connecte avec ${m.connectionName ?? 'un autre fournisseur d’identité'} a demandé à lier cette identité à votre compte ${m.companyName} (${m.login}). Une fois liée, cette identité ouvre votre compte.`,
        'Si c’était vous, ouvrez ce lien dans les 15 minutes, dans le navigateur où vous avez commencé à vous connecter :',
      ],
      button: 'Lier cette connexion',
      after: "Si ce n'était pas vous, ignorez ce message : rien n'est lié, votre compte ne change pas.",
    }),
  },
};

const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

export function renderMessage(purpose: Purpose, language: Language, input: MessageInput): RenderedMessage {
  const words = WORDS[language];
  const { subject, lines, button, after } = words[purpose](input);
  const hello = words.hello(input.personName);
  const text = [hello, '', ...lines, '', input.link, '', after, '', `-- ${input.companyName}`, ''].join('\n');
  const paragraph = (line: string) => `<p>${escapeHtml(line)}</p>`;
  const html = `<!doctype html>
<html lang="${language}">
<head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="font-family: system-ui, sans-serif; line-height: 1.5; max-width: 36rem;">
${paragraph(hello)}
${lines.map(paragraph).join('\n')}
<p><a href="${escapeHtml(input.link)}" style="display: inline-block; padding: 0.6rem 1rem; background: #1565c0; color: #ffffff; text-decoration: none; border-radius: 4px;">${escapeHtml(button)}</a></p>
<p style="font-size: 0.9rem;">${escapeHtml(input.link)}</p>
${paragraph(after)}
<p>${escapeHtml(input.companyName)}</p>
</body>
</html>
`;
  return { subject, text, html };
}
