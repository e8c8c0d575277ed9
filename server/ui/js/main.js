// The console's entry point: the login, the tabs, and what each tab shows.
import { getJson, setUnauthorizedHandler } from './api.js';
import { ScopeTree } from './collections.js';
import { byId, el, showStatus } from './dom.js';
import { DocumentBrowser } from './documents.js';
import { Overview } from './overview.js';
import * as paths from './paths.js';
import { clearLogin, loadLogin, saveLogin } from './session.js';

const reportError = (err) => showStatus(err?.message ?? String(err));

const overview = new Overview({ tbody: byId('bucket-table').tBodies[0], charts: byId('charts') }, reportError);

const browser = new DocumentBrowser({
  title: byId('keys-title'),
  keys: byId('key-list'),
  prev: byId('keys-prev'),
  next: byId('keys-next'),
  page: byId('keys-page'),
  openForm: byId('open-doc-form'),
  editorTitle: byId('editor-title'),
  meta: byId('editor-meta'),
  text: byId('editor-text'),
  save: byId('doc-save'),
  del: byId('doc-delete'),
  status: byId('editor-status'),
}, reportError);

const scopeTree = new ScopeTree({
  list: byId('scope-list'),
  newScopeForm: byId('new-scope-form'),
  onSelect: (where) => browser.show(where),
  onError: reportError,
});

const bucketPicker = byId('doc-bucket');
bucketPicker.addEventListener('change', () => scopeTree.show(bucketPicker.value).catch(reportError));

async function showDocumentsTab() {
  const buckets = (await getJson(paths.BUCKETS)).map((b) => b.name).sort();
  const current = buckets.includes(bucketPicker.value) ? bucketPicker.value : buckets[0];
  bucketPicker.replaceChildren(...buckets.map((name) => el('option', { value: name }, name)));
  if (current === undefined) return;
  bucketPicker.value = current;
  await scopeTree.show(current);
}

function selectTab(name) {
  for (const button of byId('tabs').querySelectorAll('button')) {
    button.classList.toggle('active', button.dataset.tab === name);
  }
  byId('overview-view').hidden = name !== 'overview';
  byId('documents-view').hidden = name !== 'documents';
  showStatus('');
  if (name === 'overview') {
    overview.start();
  } else {
    overview.pause();
    showDocumentsTab().catch(reportError);
  }
}

for (const button of byId('tabs').querySelectorAll('button')) {
  button.addEventListener('click', () => selectTab(button.dataset.tab));
}

function showLoggedIn(user) {
  byId('login-view').hidden = true;
  byId('tabs').hidden = false;
  byId('whoami').hidden = false;
  byId('user-name').textContent = user;
  selectTab('overview');
}

function showLogin(message = '') {
  overview.pause();
  overview.charts.clear();
  for (const id of ['overview-view', 'documents-view', 'tabs', 'whoami']) byId(id).hidden = true;
  byId('login-view').hidden = false;
  byId('login-error').textContent = message;
  showStatus('');
}

function logOut(message) {
  clearLogin();
  showLogin(message);
}

setUnauthorizedHandler(() => logOut('Your login is no longer accepted: log in again.'));
byId('logout').addEventListener('click', () => logOut());

byId('login-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = event.target;
  const login = { user: form.elements.user.value, password: form.elements.password.value };
  byId('login-error').textContent = '';
  try {
    await getJson(paths.POOLS, { login });
  } catch (err) {
    byId('login-error').textContent = err.message;
    return;
  }
  saveLogin(login.user, login.password);
  form.reset();
  showLoggedIn(login.user);
});

// A reload keeps the tab's login, if the server still takes it.
const saved = loadLogin();
if (saved) {
  getJson(paths.POOLS).then(() => showLoggedIn(saved.user), (err) => logOut(err.message));
} else {
  showLogin();
}
