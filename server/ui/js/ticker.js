// Runs a job every `ms`, never two at once: the next run is planned when one ends, so a slow
// server gets no pile of requests.

/** Starts at once; returns stop(). A run that throws is reported to onError and the next goes on. */
export function every(ms, job, onError = () => {}) {
  let stopped = false;
  let timer = null;
  const tick = async () => {
    const started = performance.now();
    try {
      await job();
    } catch (err) {
      onError(err);
    }
    if (!stopped) timer = setTimeout(tick, Math.max(0, ms - (performance.now() - started)));
  };
  tick();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
