// Shopping cart kept in the browser.
import { formatPrice } from './money.js';

const TAX_RATE = 0.2;

/**
 * Cart holds the items a customer picked.
 */
export class Cart {
  constructor() {
    this.items = [];
  }

  // add puts an item in the cart.
  add(item, quantity = 1) {
    this.items.push({ item, quantity });
  }

  total() {
    return this.items.reduce((sum, l) => sum + l.item.price * l.quantity, 0);
  }
}

/** Computes the tax owed on an amount. */
function computeTax(amount) {
  return amount * TAX_RATE;
}

export const renderTotal = (cart) => {
  const t = cart.total();
  return formatPrice(t + computeTax(t));
};

export default function checkout(cart) {
  if (cart.items.length === 0) {
    throw new Error('empty cart');
  }
  return renderTotal(cart);
}
