// A software WebAuthn authenticator, installed as the browser's navigator.credentials, so the
// unmodified supabase-js runs its passkey and WebAuthn MFA ceremonies in Node.
//
// P-256 keys (ES256), attestation "none", CBOR attestation objects and authenticator data
// with the UP/UV/AT flags and a sign counter, clientDataJSON with the challenge and origin.
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

export const b64url = (bytes) => Buffer.from(bytes).toString('base64url');
const bytesOf = (value) => Buffer.from(value instanceof ArrayBuffer ? new Uint8Array(value) : value);
const arrayBuffer = (buffer) => buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength);
const sha256 = (data) => createHash('sha256').update(data).digest();

// CBOR (RFC 8949), the few types WebAuthn needs: integers, byte and text strings, maps.
function cborHead(major, length) {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
  if (length < 0x10000) return Buffer.from([(major << 5) | 25, length >> 8, length & 0xff]);
  const head = Buffer.alloc(5);
  head[0] = (major << 5) | 26;
  head.writeUInt32BE(length, 1);
  return head;
}

export function cbor(value) {
  if (Number.isInteger(value)) return value >= 0 ? cborHead(0, value) : cborHead(1, -1 - value);
  if (typeof value === 'string') {
    const text = Buffer.from(value, 'utf8');
    return Buffer.concat([cborHead(3, text.length), text]);
  }
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) return Buffer.concat([cborHead(2, value.length), Buffer.from(value)]);
  if (value instanceof Map) {
    return Buffer.concat([cborHead(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])]);
  }
  return cbor(new Map(Object.entries(value)));
}

// What navigator.credentials.create()/get() resolve to (auth-js checks instanceof and
// serializes it with getClientExtensionResults()).
export class PublicKeyCredential {
  constructor(rawId, response) {
    this.id = b64url(rawId);
    this.rawId = arrayBuffer(rawId);
    this.type = 'public-key';
    this.response = response;
    this.authenticatorAttachment = 'platform';
  }

  getClientExtensionResults() {
    return {};
  }
}

export class SoftAuthenticator {
  /** `origin`: what clientDataJSON says the page is; `counterStep`: 0 for an authenticator that does not count. */
  constructor({ origin, counterStep = 1, aaguid = Buffer.alloc(16) } = {}) {
    this.origin = origin;
    this.counterStep = counterStep;
    this.aaguid = aaguid;
    this.credentials = new Map(); // base64url id -> credential
    this.spoil = {}; // one-shot changes to the next answer: { origin, rpId, signature }
  }

  clientData(type, challenge) {
    const origin = this.spoil.origin ?? this.origin;
    return Buffer.from(JSON.stringify({ type, challenge: b64url(bytesOf(challenge)), origin, crossOrigin: false }));
  }

  authData(rpId, flags, signCount) {
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(signCount);
    return Buffer.concat([sha256(this.spoil.rpId ?? rpId), Buffer.from([flags]), counter]);
  }

  async create({ publicKey }) {
    const excluded = new Set((publicKey.excludeCredentials ?? []).map((c) => b64url(bytesOf(c.id))));
    if ([...this.credentials.keys()].some((id) => excluded.has(id))) {
      throw Object.assign(new Error('credential already registered'), { name: 'InvalidStateError' });
    }
    const { privateKey, publicKey: key } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const jwk = key.export({ format: 'jwk' });
    const rpId = publicKey.rp.id;
    const id = randomBytes(32);
    const credential = { id, privateKey, rpId, userHandle: bytesOf(publicKey.user.id), signCount: 0 };
    this.credentials.set(b64url(id), credential);
    const coseKey = cbor(new Map([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x, 'base64url')], [-3, Buffer.from(jwk.y, 'base64url')]]));
    const idLength = Buffer.from([id.length >> 8, id.length & 0xff]);
    const authData = Buffer.concat([this.authData(rpId, FLAG_UP | FLAG_UV | FLAG_AT, 0), this.aaguid, idLength, id, coseKey]);
    const attestationObject = cbor(new Map([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]));
    const clientDataJSON = this.clientData('webauthn.create', publicKey.challenge);
    this.spoil = {};
    return new PublicKeyCredential(id, {
      clientDataJSON: arrayBuffer(clientDataJSON),
      attestationObject: arrayBuffer(attestationObject),
      getTransports: () => ['internal'],
    });
  }

  async get({ publicKey }) {
    const allowed = (publicKey.allowCredentials ?? []).map((c) => b64url(bytesOf(c.id)));
    const candidates = [...this.credentials.entries()].filter(([id, c]) =>
      (allowed.length ? allowed.includes(id) : true) && c.rpId === publicKey.rpId);
    if (candidates.length === 0) throw Object.assign(new Error('no credential for this request'), { name: 'NotAllowedError' });
    const credential = candidates[candidates.length - 1][1];
    credential.signCount += this.counterStep;
    const clientDataJSON = this.clientData('webauthn.get', publicKey.challenge);
    const authenticatorData = this.authData(credential.rpId, FLAG_UP | FLAG_UV, credential.signCount);
    let signature = sign('sha256', Buffer.concat([authenticatorData, sha256(clientDataJSON)]), { key: credential.privateKey, dsaEncoding: 'der' });
    if (this.spoil.signature) signature = Buffer.concat([signature.subarray(0, -1), Buffer.from([signature.at(-1) ^ 1])]);
    this.spoil = {};
    return new PublicKeyCredential(credential.id, {
      clientDataJSON: arrayBuffer(clientDataJSON),
      authenticatorData: arrayBuffer(authenticatorData),
      signature: arrayBuffer(signature),
      userHandle: arrayBuffer(credential.userHandle),
    });
  }
}

/**
 * Make this Node process look like a browser page at `origin` whose navigator.credentials is
 * `authenticator`: the globals auth-js's browserSupportsWebAuthn() checks (window, document,
 * window.PublicKeyCredential, navigator.credentials.create/get) and window.location.
 * Clients made afterwards should pass `detectSessionInUrl: false`.
 */
export function installAuthenticator(authenticator, origin = authenticator.origin) {
  const url = new URL(origin);
  globalThis.window = { location: { href: `${url.origin}/`, origin: url.origin, hostname: url.hostname }, PublicKeyCredential };
  globalThis.document = {};
  globalThis.PublicKeyCredential = PublicKeyCredential;
  Object.defineProperty(globalThis, 'navigator', {
    configurable: true,
    value: { credentials: { create: (options) => authenticator.create(options), get: (options) => authenticator.get(options) } },
  });
  return authenticator;
}
