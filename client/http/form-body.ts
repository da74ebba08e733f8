/**
 * openapi-fetch's bodySerializer for the multipart routes: every field of the typed body becomes
 * a form part; Blob values (File keeps its name) become file parts, others their string form.
 */
export function formBody(body: Record<string, unknown>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined || value === null) continue;
    if (value instanceof Blob) form.append(name, value);
    else form.append(name, String(value));
  }
  return form;
}
