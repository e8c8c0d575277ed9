// Scopes and collections of one bucket: the tree, with create and drop, and the choice of the
// collection whose documents the browser shows.
import { getJson, request } from './api.js';
import { el } from './dom.js';
import * as paths from './paths.js';

export class ScopeTree {
  /** onSelect({ bucket, scope, collection }) or onSelect(null); onError(err). */
  constructor({ list, newScopeForm, onSelect, onError }) {
    this.list = list;
    this.onSelect = onSelect;
    this.onError = onError;
    this.bucket = null;
    this.selected = null; // { scope, collection }
    newScopeForm.addEventListener('submit', (event) => {
      event.preventDefault();
      const name = newScopeForm.elements.name.value.trim();
      this.change('POST', paths.scopes(this.bucket), { name }).then((ok) => {
        if (ok) newScopeForm.reset();
      });
    });
  }

  async show(bucket) {
    this.bucket = bucket;
    this.selected = null;
    this.onSelect(null);
    await this.reload();
  }

  async reload() {
    if (this.bucket === null) {
      this.list.replaceChildren();
      return;
    }
    const manifest = await getJson(paths.scopes(this.bucket));
    const scopes = [...manifest.scopes].sort((a, b) => a.name.localeCompare(b.name));
    const stillThere = this.selected && scopes.some((s) => s.name === this.selected.scope &&
      s.collections.some((c) => c.name === this.selected.collection));
    if (this.selected && !stillThere) {
      this.selected = null;
      this.onSelect(null);
    }
    this.list.replaceChildren(...scopes.map((s) => this.scopeItem(s)));
  }

  // A create or drop; reloads the tree after it. Resolves with whether it worked.
  async change(method, path, form) {
    try {
      await request(method, path, { form });
      await this.reload();
      return true;
    } catch (err) {
      this.onError(err);
      return false;
    }
  }

  select(scope, collection) {
    this.selected = { scope, collection };
    this.onSelect({ bucket: this.bucket, scope, collection });
    for (const item of this.list.querySelectorAll('li[data-collection]')) {
      item.classList.toggle('selected',
        item.dataset.scope === scope && item.dataset.collection === collection);
    }
  }

  scopeItem(scope) {
    const drop = scope.name === '_default' ? null : el('button', {
      type: 'button', className: 'danger small', title: `Drop scope ${scope.name}`,
      onclick: () => {
        if (confirm(`Drop scope "${scope.name}" and every document in it?`)) {
          this.change('DELETE', paths.scope(this.bucket, scope.name));
        }
      },
    }, 'Drop');
    const form = el('form', { className: 'inline' },
      el('input', { name: 'name', placeholder: 'new collection', required: true }),
      el('input', { name: 'maxTTL', placeholder: 'max TTL s', type: 'number', min: '0' }),
      el('button', { type: 'submit' }, 'Create'));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const fields = { name: form.elements.name.value.trim() };
      if (form.elements.maxTTL.value !== '') fields.maxTTL = form.elements.maxTTL.value;
      this.change('POST', paths.collections(this.bucket, scope.name), fields);
    });
    const collections = [...scope.collections].sort((a, b) => a.name.localeCompare(b.name));
    return el('li', { dataset: { scope: scope.name } },
      el('div', { className: 'row' }, el('span', { className: 'name' }, scope.name), drop),
      el('ul', {}, collections.map((c) => this.collectionItem(scope.name, c))),
      form);
  }

  collectionItem(scope, collection) {
    const isSelected = this.selected?.scope === scope && this.selected?.collection === collection.name;
    return el('li', {
      className: isSelected ? 'selected' : '',
      dataset: { scope, collection: collection.name },
    },
    el('div', { className: 'row' },
      el('button', { type: 'button', className: 'link', onclick: () => this.select(scope, collection.name) },
        collection.name),
      collection.maxTTL ? el('span', { className: 'hint' }, `max TTL ${collection.maxTTL} s`) : null,
      el('button', {
        type: 'button', className: 'danger small', title: `Drop collection ${scope}.${collection.name}`,
        onclick: () => {
          if (confirm(`Drop collection "${scope}.${collection.name}" and every document in it?`)) {
            this.change('DELETE', paths.collection(this.bucket, scope, collection.name));
          }
        },
      }, 'Drop')));
  }
}
