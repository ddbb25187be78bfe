import type { Language } from '../i18n/index.js';

/**
 * The provider's own e-mails (docs/CONSOLE.md, "E-mail templates"), in every language: what a
 * company without a template of its own (or of an ancestor) sends. `{{name}}` placeholders are
 * filled in by templates.ts, each value escaped in the HTML copy.
 */
export type Purpose = 'reset' | 'invite' | 'verify' | 'link-identity';
export const PURPOSES: readonly Purpose[] = ['reset', 'invite', 'verify', 'link-identity'];

export interface Template {
  subject: string;
  body: string;
}

interface LanguageWords {
  templates: Record<Purpose, Template & { button: string }>;
  /** The footer's label before the support address and link. */
  support: string;
  /** {{connectionName}} when the message names no connection. */
  anotherProvider: string;
}

export const DEFAULTS: Record<Language, LanguageWords> = {
  en: {
    support: 'Help',
    anotherProvider: 'another identity provider',
    templates: {
      reset: {
        subject: 'Reset your {{companyName}} password',
        body: 'Hello {{personName}},\n\nSomeone, we hope you, asked to reset the password of your {{companyName}} account ({{login}}). To choose a new password, open this link within 30 minutes:\n\n{{link}}\n\nIf you did not ask for it, ignore this message: your password stays as it is.',
        button: 'Choose a new password',
      },
      invite: {
        subject: 'Your {{companyName}} account',
        body: 'Hello {{personName}},\n\n{{companyName}} has made an account for you ({{login}}). To choose your password, open this link within 7 days:\n\n{{link}}\n\nIf you did not expect this message, ignore it.',
        button: 'Choose your password',
      },
      verify: {
        subject: 'Verify your e-mail address for {{companyName}}',
        body: 'Hello {{personName}},\n\nTo confirm that {{email}} is the address of your {{companyName}} account, open this link within 24 hours:\n\n{{link}}\n\nIf you did not ask for it, ignore this message.',
        button: 'Verify my address',
      },
      'link-identity': {
        subject: 'Link a sign-in to your {{companyName}} account',
        body: 'Hello {{personName}},\n\nSomeone signing in with {{connectionName}} asked to link that identity to your {{companyName}} account ({{login}}). Once linked, that identity signs in to your account.\n\nIf it was you, open this link within 15 minutes, in the browser where you started signing in:\n\n{{link}}\n\nIf it was not you, ignore this message: nothing is linked, and your account stays as it is.',
        button: 'Link this sign-in',
      },
    },
  },
  fr: {
    support: 'Assistance',
    anotherProvider: 'un autre fournisseur d’identité',
    templates: {
      reset: {
        subject: 'Réinitialisez votre mot de passe {{companyName}}',
        body: "Bonjour {{personName}},\n\nQuelqu'un, vous sans doute, a demandé à réinitialiser le mot de passe de votre compte {{companyName}} ({{login}}). Pour choisir un nouveau mot de passe, ouvrez ce lien dans les 30 minutes :\n\n{{link}}\n\nSi vous n'avez rien demandé, ignorez ce message : votre mot de passe ne change pas.",
        button: 'Choisir un nouveau mot de passe',
      },
      invite: {
        subject: 'Votre compte {{companyName}}',
        body: "Bonjour {{personName}},\n\n{{companyName}} vous a créé un compte ({{login}}). Pour choisir votre mot de passe, ouvrez ce lien dans les 7 jours :\n\n{{link}}\n\nSi vous n'attendiez pas ce message, ignorez-le.",
        button: 'Choisir mon mot de passe',
      },
      verify: {
        subject: 'Vérifiez votre adresse e-mail pour {{companyName}}',
        body: "Bonjour {{personName}},\n\nPour confirmer que {{email}} est l'adresse de votre compte {{companyName}}, ouvrez ce lien dans les 24 heures :\n\n{{link}}\n\nSi vous n'avez rien demandé, ignorez ce message.",
        button: 'Vérifier mon adresse',
      },
      'link-identity': {
        subject: 'Lier une connexion à votre compte {{companyName}}',
        body: "Bonjour {{personName}},\n\nQuelqu'un qui se connecte avec {{connectionName}} a demandé à lier cette identité à votre compte {{companyName}} ({{login}}). Une fois liée, cette identité ouvre votre compte.\n\nSi c’était vous, ouvrez ce lien dans les 15 minutes, dans le navigateur où vous avez commencé à vous connecter :\n\n{{link}}\n\nSi ce n'était pas vous, ignorez ce message : rien n'est lié, votre compte ne change pas.",
        button: 'Lier cette connexion',
      },
    },
  },
  de: {
    support: 'Hilfe',
    anotherProvider: 'einem anderen Identitätsanbieter',
    templates: {
      reset: {
        subject: 'Setzen Sie Ihr {{companyName}}-Passwort zurück',
        body: 'Hallo {{personName}},\n\njemand – hoffentlich Sie – hat angefordert, das Passwort Ihres {{companyName}}-Kontos ({{login}}) zurückzusetzen. Um ein neues Passwort zu wählen, öffnen Sie innerhalb von 30 Minuten diesen Link:\n\n{{link}}\n\nWenn Sie das nicht angefordert haben, ignorieren Sie diese Nachricht: Ihr Passwort bleibt unverändert.',
        button: 'Neues Passwort wählen',
      },
      invite: {
        subject: 'Ihr {{companyName}}-Konto',
        body: 'Hallo {{personName}},\n\n{{companyName}} hat ein Konto für Sie eingerichtet ({{login}}). Um Ihr Passwort festzulegen, öffnen Sie innerhalb von 7 Tagen diesen Link:\n\n{{link}}\n\nWenn Sie diese Nachricht nicht erwartet haben, ignorieren Sie sie.',
        button: 'Passwort festlegen',
      },
      verify: {
        subject: 'Bestätigen Sie Ihre E-Mail-Adresse für {{companyName}}',
        body: 'Hallo {{personName}},\n\num zu bestätigen, dass {{email}} die Adresse Ihres {{companyName}}-Kontos ist, öffnen Sie innerhalb von 24 Stunden diesen Link:\n\n{{link}}\n\nWenn Sie das nicht angefordert haben, ignorieren Sie diese Nachricht.',
        button: 'Adresse bestätigen',
      },
      'link-identity': {
        subject: 'Eine Anmeldung mit Ihrem {{companyName}}-Konto verknüpfen',
        body: 'Hallo {{personName}},\n\njemand, der sich mit {{connectionName}} anmeldet, möchte diese Identität mit Ihrem {{companyName}}-Konto ({{login}}) verknüpfen. Nach der Verknüpfung meldet diese Identität Sie bei Ihrem Konto an.\n\nWenn Sie das waren, öffnen Sie innerhalb von 15 Minuten diesen Link, und zwar in dem Browser, in dem Sie die Anmeldung begonnen haben:\n\n{{link}}\n\nWenn Sie das nicht waren, ignorieren Sie diese Nachricht: Es wird nichts verknüpft, und Ihr Konto bleibt unverändert.',
        button: 'Anmeldung verknüpfen',
      },
    },
  },
  es: {
    support: 'Ayuda',
    anotherProvider: 'otro proveedor de identidad',
    templates: {
      reset: {
        subject: 'Restablece tu contraseña de {{companyName}}',
        body: 'Hola, {{personName}}:\n\nAlguien, esperamos que tú, ha pedido restablecer la contraseña de tu cuenta de {{companyName}} ({{login}}). Para elegir una contraseña nueva, abre este enlace en los próximos 30 minutos:\n\n{{link}}\n\nSi no lo has pedido, ignora este mensaje: tu contraseña no cambia.',
        button: 'Elegir una contraseña nueva',
      },
      invite: {
        subject: 'Tu cuenta de {{companyName}}',
        body: 'Hola, {{personName}}:\n\n{{companyName}} ha creado una cuenta para ti ({{login}}). Para elegir tu contraseña, abre este enlace en los próximos 7 días:\n\n{{link}}\n\nSi no esperabas este mensaje, ignóralo.',
        button: 'Elegir mi contraseña',
      },
      verify: {
        subject: 'Verifica tu dirección de correo electrónico para {{companyName}}',
        body: 'Hola, {{personName}}:\n\nPara confirmar que {{email}} es la dirección de tu cuenta de {{companyName}}, abre este enlace en las próximas 24 horas:\n\n{{link}}\n\nSi no lo has pedido, ignora este mensaje.',
        button: 'Verificar mi dirección',
      },
      'link-identity': {
        subject: 'Vincula un inicio de sesión a tu cuenta de {{companyName}}',
        body: 'Hola, {{personName}}:\n\nAlguien que inicia sesión con {{connectionName}} ha pedido vincular esa identidad a tu cuenta de {{companyName}} ({{login}}). Una vez vinculada, esa identidad inicia sesión en tu cuenta.\n\nSi has sido tú, abre este enlace en los próximos 15 minutos, en el navegador donde empezaste a iniciar sesión:\n\n{{link}}\n\nSi no has sido tú, ignora este mensaje: no se vincula nada y tu cuenta no cambia.',
        button: 'Vincular este inicio de sesión',
      },
    },
  },
  ja: {
    support: 'サポート',
    anotherProvider: '別の ID プロバイダー',
    templates: {
      reset: {
        subject: '{{companyName}} のパスワードの再設定',
        body: '{{personName}} 様\n\n{{companyName}} アカウント（{{login}}）のパスワードの再設定が依頼されました。新しいパスワードを設定するには、30 分以内に次のリンクを開いてください。\n\n{{link}}\n\nお心当たりがない場合は、このメッセージを無視してください。パスワードは変更されません。',
        button: '新しいパスワードを設定',
      },
      invite: {
        subject: '{{companyName}} のアカウント',
        body: '{{personName}} 様\n\n{{companyName}} があなたのアカウント（{{login}}）を作成しました。パスワードを設定するには、7 日以内に次のリンクを開いてください。\n\n{{link}}\n\nこのメッセージにお心当たりがない場合は、無視してください。',
        button: 'パスワードを設定',
      },
      verify: {
        subject: '{{companyName}} のメールアドレスの確認',
        body: '{{personName}} 様\n\n{{email}} が {{companyName}} アカウントのメールアドレスであることを確認するため、24 時間以内に次のリンクを開いてください。\n\n{{link}}\n\nお心当たりがない場合は、このメッセージを無視してください。',
        button: 'メールアドレスを確認',
      },
      'link-identity': {
        subject: '{{companyName}} アカウントへのサインイン方法の連携',
        body: '{{personName}} 様\n\n{{connectionName}} でサインインしている方から、その ID をあなたの {{companyName}} アカウント（{{login}}）に連携するよう依頼がありました。連携すると、その ID であなたのアカウントにサインインできるようになります。\n\nご本人の場合は、サインインを始めたブラウザーで、15 分以内に次のリンクを開いてください。\n\n{{link}}\n\nお心当たりがない場合は、このメッセージを無視してください。何も連携されず、アカウントは変更されません。',
        button: 'このサインインを連携',
      },
    },
  },
  ar: {
    support: 'الدعم',
    anotherProvider: 'مزوّد هوية آخر',
    templates: {
      reset: {
        subject: 'إعادة تعيين كلمة مرور {{companyName}}',
        body: 'مرحبًا {{personName}}،\n\nطلب أحدهم، ونأمل أن تكون أنت، إعادة تعيين كلمة مرور حسابك في {{companyName}} ({{login}}). لاختيار كلمة مرور جديدة، افتح هذا الرابط خلال 30 دقيقة:\n\n{{link}}\n\nإذا لم تطلب ذلك، فتجاهل هذه الرسالة: ستبقى كلمة مرورك كما هي.',
        button: 'اختيار كلمة مرور جديدة',
      },
      invite: {
        subject: 'حسابك في {{companyName}}',
        body: 'مرحبًا {{personName}}،\n\nأنشأت {{companyName}} حسابًا لك ({{login}}). لاختيار كلمة المرور، افتح هذا الرابط خلال 7 أيام:\n\n{{link}}\n\nإذا لم تكن تتوقع هذه الرسالة، فتجاهلها.',
        button: 'اختيار كلمة المرور',
      },
      verify: {
        subject: 'تأكيد عنوان بريدك الإلكتروني لدى {{companyName}}',
        body: 'مرحبًا {{personName}}،\n\nلتأكيد أن {{email}} هو عنوان حسابك في {{companyName}}، افتح هذا الرابط خلال 24 ساعة:\n\n{{link}}\n\nإذا لم تطلب ذلك، فتجاهل هذه الرسالة.',
        button: 'تأكيد عنواني',
      },
      'link-identity': {
        subject: 'ربط طريقة تسجيل دخول بحسابك في {{companyName}}',
        body: 'مرحبًا {{personName}}،\n\nطلب شخص يسجّل الدخول عبر {{connectionName}} ربط هذه الهوية بحسابك في {{companyName}} ({{login}}). بعد الربط، ستتمكن هذه الهوية من تسجيل الدخول إلى حسابك.\n\nإذا كنت أنت، فافتح هذا الرابط خلال 15 دقيقة، في المتصفح الذي بدأت فيه تسجيل الدخول:\n\n{{link}}\n\nإذا لم تكن أنت، فتجاهل هذه الرسالة: لن يُربط أي شيء، وسيبقى حسابك كما هو.',
        button: 'ربط تسجيل الدخول هذا',
      },
    },
  },
};
