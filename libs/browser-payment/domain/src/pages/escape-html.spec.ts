import fc from 'fast-check';
import { escapeHtml, html, SafeHtml } from './escape-html';

describe('escapeHtml', () => {
  it('turns markup into text', () => {
    expect(escapeHtml('<script>alert("x")</script>')).toBe('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(escapeHtml(`a'b\`c=d&e`)).toBe('a&#39;b&#96;c&#61;d&amp;e');
  });

  it('leaves no character that can open a tag, end an attribute or start an entity unescaped, for any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        const escaped = escapeHtml(text);
        expect(escaped).not.toMatch(/[<>"'`=]/);
        expect(escaped.replace(/&(amp|lt|gt|quot|#39|#96|#61);/g, '')).not.toContain('&');
      }),
    );
  });
});

describe('the html template', () => {
  it('escapes every interpolated value, and only fragments built with it pass as they are', () => {
    const name = '<b onclick="x()">';
    const row = html`<td>${name}</td>`;
    expect(html`<tr>${row}${[html`<td>${1}</td>`, '<i>']}</tr>`.value).toBe(
      '<tr><td>&lt;b onclick&#61;&quot;x()&quot;&gt;</td><td>1</td>&lt;i&gt;</tr>',
    );
    expect(html`${null}${undefined}${false}`.value).toBe('');
    expect(html`${new SafeHtml('<br>')}`.value).toBe('<br>');
  });
});
