// The document browser of one collection: its keys page by page, and an editor that opens a
// document, saves its JSON with the CAS it was read with (a change made meanwhile by someone
// else is refused, not overwritten), and deletes it.
import { ApiError, getJson, request } from './api.js';
import { el } from './dom.js';
import * as paths from './paths.js';

const PAGE_SIZE = 20;

export class DocumentBrowser {
  constructor(ui, onError) {
    this.ui = ui; // { title, keys, prev, next, page, openForm, editorTitle, meta, text, save, del, status }
    this.onError = onError;
    this.where = null;
    this.pageStarts = [null]; // the startAfter of each page seen, for Previous
    this.nextStart = null;
    this.open = null; // { id, cas } of the document in the editor (cas null: a new document)
    ui.prev.addEventListener('click', () => this.turn(-1));
    ui.next.addEventListener('click', () => this.turn(+1));
    ui.openForm.addEventListener('submit', (event) => {
      event.preventDefault();
      this.openDocument(ui.openForm.elements.id.value);
    });
    ui.save.addEventListener('click', () => this.save());
    ui.del.addEventListener('click', () => this.remove());
  }

  /** Shows the collection { bucket, scope, collection }, or nothing (null). */
  async show(where) {
    this.where = where;
    this.pageStarts = [null];
    this.closeEditor('');
    this.ui.title.textContent = where ? `Documents in ${where.scope}.${where.collection}` : 'Documents';
    this.ui.openForm.hidden = !where;
    await this.loadPage();
  }

  async turn(step) {
    if (step > 0) this.pageStarts.push(this.nextStart);
    else if (this.pageStarts.length > 1) this.pageStarts.pop();
    await this.loadPage();
  }

  async loadPage() {
    const { keys, prev, next, page } = this.ui;
    if (!this.where) {
      keys.replaceChildren();
      prev.disabled = next.disabled = true;
      page.textContent = '';
      return;
    }
    try {
      const start = this.pageStarts[this.pageStarts.length - 1];
      const result = await getJson(paths.docPage(this.where, PAGE_SIZE, start));
      this.nextStart = result.next ?? null;
      keys.replaceChildren(...result.rows.map(({ id }) => el('li', {
        className: this.open?.id === id ? 'open' : '', dataset: { id },
      }, el('button', { type: 'button', className: 'link', onclick: () => this.openDocument(id) }, id))));
      if (result.rows.length === 0) keys.append(el('li', { className: 'hint' }, 'no documents'));
      prev.disabled = this.pageStarts.length <= 1;
      next.disabled = this.nextStart === null;
      page.textContent = `page ${this.pageStarts.length}`;
    } catch (err) {
      this.onError(err);
    }
  }

  async openDocument(id) {
    if (!this.where || id === '') return;
    const { editorTitle, meta, text, save, del } = this.ui;
    try {
      const doc = await getJson(paths.doc(this.where, id));
      const binary = doc.json === undefined;
      this.open = { id, cas: doc.meta.cas };
      editorTitle.textContent = id;
      meta.textContent = `CAS ${doc.meta.cas} · flags ${doc.meta.flags} · expiry ${doc.meta.expiration || 'none'}`;
      text.value = binary ? `(a binary value of ${atob(doc.base64).length} bytes: not editable here)`
        : JSON.stringify(doc.json, null, 2);
      text.disabled = save.disabled = binary;
      del.disabled = false;
      this.say('');
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) {
        this.onError(err);
        return;
      }
      this.open = { id, cas: null };
      editorTitle.textContent = `${id} (new)`;
      meta.textContent = 'Not stored yet: Save creates it.';
      text.value = '{\n}';
      text.disabled = save.disabled = false;
      del.disabled = true;
      this.say('');
    }
    this.markOpenKey();
  }

  async save() {
    const { text, meta, editorTitle, del } = this.ui;
    let value;
    try {
      value = JSON.stringify(JSON.parse(text.value));
    } catch (err) {
      this.say(`Not saved: the text is not JSON (${err.message})`, true);
      return;
    }
    const form = { value };
    if (this.open.cas !== null) form.cas = this.open.cas;
    try {
      const answer = JSON.parse(await request('POST', paths.doc(this.where, this.open.id), { form }));
      this.open.cas = answer.cas;
      editorTitle.textContent = this.open.id;
      meta.textContent = `CAS ${answer.cas}`;
      del.disabled = false;
      this.say(`Saved (CAS ${answer.cas})`);
      await this.loadPage();
    } catch (err) {
      this.say(err instanceof ApiError && err.status === 409
        ? 'Not saved: someone changed the document since it was opened. Open it again to see their change.'
        : `Not saved: ${err.message}`, true);
    }
  }

  async remove() {
    if (!this.open || !confirm(`Delete document "${this.open.id}"?`)) return;
    const { id } = this.open;
    try {
      await request('DELETE', paths.doc(this.where, id));
      this.closeEditor(`Deleted ${id}`);
      await this.loadPage();
    } catch (err) {
      this.say(`Not deleted: ${err.message}`, true);
    }
  }

  closeEditor(message) {
    const { editorTitle, meta, text, save, del } = this.ui;
    this.open = null;
    editorTitle.textContent = 'No document open';
    meta.textContent = '';
    text.value = '';
    text.disabled = save.disabled = del.disabled = true;
    this.say(message);
    this.markOpenKey();
  }

  // The editor's status line; a refusal shows as an error.
  say(message, isError = false) {
    this.ui.status.textContent = message;
    this.ui.status.classList.toggle('error', isError);
  }

  markOpenKey() {
    for (const item of this.ui.keys.querySelectorAll('li[data-id]')) {
      item.classList.toggle('open', item.dataset.id === this.open?.id);
    }
  }
}
