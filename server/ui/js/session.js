// The login of this browser tab. sessionStorage: it lasts until the tab closes, and no other
// tab or later visit sees it.
const KEY = 'tern.console.login';

export function saveLogin(user, password) {
  sessionStorage.setItem(KEY, JSON.stringify({ user, password }));
}

/** { user, password }, or null when nobody has logged in in this tab. */
export function loadLogin() {
  try {
    const login = JSON.parse(sessionStorage.getItem(KEY));
    return login && typeof login.user === 'string' && typeof login.password === 'string' ? login : null;
  } catch {
    return null;
  }
}

export function clearLogin() {
  sessionStorage.removeItem(KEY);
}
