import { html, SafeHtml } from '../../../platform/web/html.js';
import type { Translator } from '../../../platform/i18n/catalogue.js';

/**
 * An item's Move up and Move down buttons, as ordering and graphic_order
 * show them: each named with the item's plain text ("Move up: Paris"), the
 * end buttons aria-disabled rather than disabled so the focus stays on the
 * button just used. `attribute` is the data attribute the type's script
 * listens on (`data-move`, `data-region-move`).
 */
export function moveButtons(t: Translator, attribute: 'data-move' | 'data-region-move', item: string, first: boolean, last: boolean): SafeHtml {
  // The attribute's name is one of two constants, never text from a question.
  const data = (direction: 'up' | 'down') => new SafeHtml(`${attribute}="${direction}"`);
  return html`<span class="order-buttons"><button type="button" class="order-move" ${data('up')} aria-label="${t.t('question.order.moveUpItem', { item })}"${first ? html` aria-disabled="true"` : ''}><span aria-hidden="true">↑</span> ${t.t('question.order.moveUp')}</button><button type="button" class="order-move" ${data('down')} aria-label="${t.t('question.order.moveDownItem', { item })}"${last ? html` aria-disabled="true"` : ''}><span aria-hidden="true">↓</span> ${t.t('question.order.moveDown')}</button></span>`;
}
