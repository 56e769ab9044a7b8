/** Fills `{{name}}` placeholders; unknown ones stay as written. */
export const renderTemplate = (template: string, values: Record<string, string>): string =>
  template.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => values[name] ?? whole);

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** The same for HTML: every value is escaped, so an App name or URL cannot inject markup. */
export const renderHtmlTemplate = (template: string, values: Record<string, string>): string =>
  renderTemplate(
    template,
    Object.fromEntries(
      Object.entries(values).map(([k, v]) => [k, v.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!)]),
    ),
  );
