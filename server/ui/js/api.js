// Every data request of the console: HTTP Basic auth with the tab's login, and the header
// `ns-server-ui: yes`, so that a 401 comes without WWW-Authenticate and the browser shows no
// login dialog of its own (the console shows its form instead).
import { loadLogin } from './session.js';

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

let onUnauthorized = () => {};

/** Called when a request with the saved login answers 401 (the password changed, say). */
export function setUnauthorizedHandler(handler) {
  onUnauthorized = handler;
}

// btoa takes Latin-1 only: encode the UTF-8 bytes of "user:password" first.
function basicAuth({ user, password }) {
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  return `Basic ${btoa(String.fromCharCode(...bytes))}`;
}

/** The message of an error answer: Couchbase's shapes ({"errors":{...}}, {"message"}, {"_"}, text). */
export function errorMessage(text, status) {
  try {
    const body = JSON.parse(text);
    if (typeof body === 'string') return body;
    if (body && typeof body === 'object') {
      if (body.errors && typeof body.errors === 'object') return Object.values(body.errors).join('; ');
      if (typeof body.message === 'string') return body.message;
      if (typeof body._ === 'string') return body._;
    }
  } catch {
    // Not JSON: the text itself.
  }
  return text.trim() || `HTTP ${status}`;
}

/**
 * Sends a request; resolves with the answer's text. `form` (an object) becomes a
 * www-form-urlencoded body; `login` overrides the saved one (the login form checks with it).
 * Rejects with ApiError on any status but 2xx.
 */
export async function request(method, path, { form, login } = {}) {
  const credentials = login ?? loadLogin();
  const headers = { 'ns-server-ui': 'yes' };
  if (credentials) headers.Authorization = basicAuth(credentials);
  const body = form === undefined ? undefined : new URLSearchParams(form);
  const res = await fetch(path, { method, headers, body, cache: 'no-store' });
  const text = await res.text();
  if (res.status === 401) {
    if (!login) onUnauthorized();
    throw new ApiError(401, 'Wrong user or password');
  }
  if (!res.ok) throw new ApiError(res.status, errorMessage(text, res.status));
  return text;
}

export async function getJson(path, options) {
  return JSON.parse(await request('GET', path, options));
}
