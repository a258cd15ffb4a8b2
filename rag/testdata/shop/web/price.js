// Formatting helpers for the storefront.

/**
 * Renders a price in cents with its currency symbol.
 */
export function formatPrice(cents, currency = 'EUR') {
  const symbols = { EUR: '€', USD: '$' };
  return `${symbols[currency] || currency} ${(cents / 100).toFixed(2)}`;
}

export class CartWidget {
  constructor(el) {
    this.el = el;
  }

  // update redraws the cart badge with the number of items.
  update(count) {
    this.el.textContent = String(count);
  }
}
