// Building elements without innerHTML: names and document text from the server are always
// text nodes, never markup.

/** el('td', { className: 'num', dataset: { bucket: 'b' } }, 'text', childNode, ...) */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node[key] = value;
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

export const byId = (id) => document.getElementById(id);

export function showStatus(message) {
  byId('status-bar').textContent = message ?? '';
}
