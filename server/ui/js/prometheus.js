// Reads the Prometheus text format (version 0.0.4), as GET /metrics answers it.

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

function unescape(value) {
  return value.replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c));
}

function parseValue(text) {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  return Number(text); // NaN stays NaN
}

// `{a="x",b="y\"z"}` at text[from]; returns [labels, index after '}'].
function parseLabels(text, from) {
  const labels = {};
  const pair = /\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*(,?)/y;
  let i = from + 1;
  for (;;) {
    while (text[i] === ' ') i += 1;
    if (text[i] === '}') return [labels, i + 1];
    pair.lastIndex = i;
    const m = pair.exec(text);
    if (!m) throw new Error(`bad labels in: ${text}`);
    labels[m[1]] = unescape(m[2]);
    i = pair.lastIndex;
    if (!m[3] && text[i] !== '}') throw new Error(`bad labels in: ${text}`);
  }
}

/**
 * Every sample of a scrape, in order: [{ name, labels, value }]. Comment lines (# HELP,
 * # TYPE) and blank lines are skipped; a line that cannot be read throws.
 */
export function parsePrometheus(text) {
  const samples = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const name = NAME.exec(line);
    if (!name) throw new Error(`bad sample line: ${line}`);
    let labels = {};
    let rest = line.slice(name[0].length);
    if (rest.startsWith('{')) {
      const [parsed, end] = parseLabels(rest, 0);
      labels = parsed;
      rest = rest.slice(end);
    }
    const fields = rest.trim().split(/\s+/); // value [timestamp]
    samples.push({ name: name[0], labels, value: parseValue(fields[0]) });
  }
  return samples;
}
