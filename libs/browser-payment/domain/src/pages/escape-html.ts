const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
  '=': '&#61;',
};

/**
 * Text for an HTML element or a quoted attribute. Every value a merchant or payer supplied
 * (item names, description, addresses, the merchant's name) goes through this before it is
 * part of a page: those pages are served from the gateway's origin, so a script slipping in
 * would run with the payer's trust in the gateway. `=` and the backtick are escaped too, so a
 * value stays inert even in an attribute someone forgets to quote.
 */
export function escapeHtml(value: string | number): string {
  return String(value).replace(/[&<>"'`=]/g, (c) => ENTITIES[c]);
}

/** A fragment already built from escaped parts; `html` joins them without escaping again. */
export class SafeHtml {
  constructor(readonly value: string) {}

  toString(): string {
    return this.value;
  }
}

type Part = string | number | SafeHtml | null | undefined | false | readonly Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) {
    return '';
  }
  if (part instanceof SafeHtml) {
    return part.value;
  }
  if (Array.isArray(part)) {
    return part.map(render).join('');
  }
  return escapeHtml(part as string | number);
}

/**
 * A tagged template that escapes every interpolated value unless it is SafeHtml (another
 * `html` fragment), so building a page cannot forget to escape:
 * html`<td>${item.name}</td>` renders `<td>&lt;script&gt;...</td>`.
 */
export function html(strings: TemplateStringsArray, ...values: Part[]): SafeHtml {
  let out = strings[0];
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1];
  });
  return new SafeHtml(out);
}
