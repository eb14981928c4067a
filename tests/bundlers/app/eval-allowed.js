// Whether this page may evaluate strings as code: false under a strict Content-Security-Policy.
export function evalAllowed() {
  try {
    return (0, eval)('true');
  } catch {
    return false;
  }
}
