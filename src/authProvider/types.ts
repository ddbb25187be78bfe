import type { SessionClient, SessionUser } from '../session/session';

/** The provider's token response (DESIGN 4). */
export interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in: number;
  scope?: string;
  id_token?: string;
  user: SessionUser;
  client: SessionClient;
}
