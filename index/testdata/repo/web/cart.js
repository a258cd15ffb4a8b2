// addToCart puts a product in the shopping cart.
export function addToCart(cart, product) {
  cart.items.push(product);
  return cart;
}
