/** Deep copy of plain JSON data (API objects are JSON by construction). */
export function cloneJson<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}
