import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

/**
 * A software WebAuthn authenticator (ES256, "none" attestation, user
 * present and verified): what a phone or a security key would answer to
 * navigator.credentials.create/get, built byte for byte as the WebAuthn
 * spec lays it out, so the server's verification is exercised for real.
 */
const b64url = (b: Uint8Array | Buffer) => Buffer.from(b).toString('base64url');
const sha256 = (b: Uint8Array | Buffer | string) => createHash('sha256').update(b).digest();

export interface SoftAuthenticator {
  credentialId: string;
  userHandle: string | null;
  counter: number;
  /** The PublicKeyCredential JSON for registration options (as passkeys.js posts it). */
  register(options: { challenge: string; rp: { id?: string }; user: { id: string } }, origin: string): Record<string, unknown>;
  /** The PublicKeyCredential JSON for authentication options. */
  assert(options: { challenge: string; rpId?: string }, origin: string, opts?: { counter?: number }): Record<string, unknown>;
}

export function createSoftAuthenticator(init: { counter?: number; key?: { privateKey: KeyObject; publicKey: KeyObject }; credentialId?: Buffer } = {}): SoftAuthenticator {
  const { privateKey, publicKey } = init.key ?? generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const credId = init.credentialId ?? randomBytes(32);
  const jwk = publicKey.export({ format: 'jwk' }) as { x: string; y: string };
  const cose = isoCBOR.encode(
    new Map<number, number | Uint8Array>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x, 'base64url')],
      [-3, Buffer.from(jwk.y, 'base64url')],
    ]),
  );
  const counterBytes = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    return b;
  };

  const auth: SoftAuthenticator = {
    credentialId: b64url(credId),
    userHandle: null,
    counter: init.counter ?? 0,
    register(options, origin) {
      auth.userHandle = options.user.id;
      const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin, crossOrigin: false }));
      const idLen = Buffer.alloc(2);
      idLen.writeUInt16BE(credId.length);
      const authData = Buffer.concat([
        sha256(options.rp.id ?? new URL(origin).hostname),
        Buffer.from([0x45]), // UP | UV | AT
        counterBytes(auth.counter),
        Buffer.alloc(16), // AAGUID
        idLen,
        credId,
        Buffer.from(cose),
      ]);
      const attestationObject = isoCBOR.encode(
        new Map<string, unknown>([
          ['fmt', 'none'],
          ['attStmt', new Map()],
          ['authData', authData],
        ]) as never,
      );
      return {
        id: b64url(credId),
        rawId: b64url(credId),
        type: 'public-key',
        response: { clientDataJSON: b64url(clientDataJSON), attestationObject: b64url(attestationObject), transports: ['internal'] },
        clientExtensionResults: {},
        authenticatorAttachment: 'platform',
      };
    },
    assert(options, origin, opts = {}) {
      if (opts.counter !== undefined) auth.counter = opts.counter;
      else if (auth.counter > 0) auth.counter++;
      const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin, crossOrigin: false }));
      const authData = Buffer.concat([sha256(options.rpId ?? new URL(origin).hostname), Buffer.from([0x05]), counterBytes(auth.counter)]);
      const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), privateKey); // DER, as ES256 assertions are
      return {
        id: b64url(credId),
        rawId: b64url(credId),
        type: 'public-key',
        response: {
          clientDataJSON: b64url(clientDataJSON),
          authenticatorData: b64url(authData),
          signature: b64url(signature),
          ...(auth.userHandle ? { userHandle: auth.userHandle } : {}),
        },
        clientExtensionResults: {},
        authenticatorAttachment: 'platform',
      };
    },
  };
  return auth;
}
